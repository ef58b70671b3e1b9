#include "pkg/client/errors.h"

#include <string>

#include "pkg/client/protobuf_decode.h"

namespace stowage::client {
namespace {

std::string_view ReasonPhrase(int code) {
  switch (code) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Request Entity Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

StatusCode CodeFor(int http, std::string_view reason) {
  switch (http) {
    case 400:
    case 422: return StatusCode::kInvalidArgument;
    case 401: return StatusCode::kUnauthenticated;
    case 403: return StatusCode::kPermissionDenied;
    case 404: return StatusCode::kNotFound;
    case 409: return reason == "AlreadyExists" ? StatusCode::kAlreadyExists : StatusCode::kAborted;
    case 410: return StatusCode::kOutOfRange;
    case 413: return StatusCode::kResourceExhausted;
    case 429: return StatusCode::kResourceExhausted;
    case 504: return StatusCode::kDeadlineExceeded;
    default: break;
  }
  if (http >= 500) return StatusCode::kUnavailable;
  return StatusCode::kUnknown;
}

Status Build(std::string_view what, const api::ApiStatus& st) {
  std::string msg(what);
  msg += ": HTTP " + std::to_string(st.code);
  if (auto phrase = ReasonPhrase(st.code); !phrase.empty()) {
    msg += ' ';
    msg += phrase;
  }
  if (!st.message.empty()) {
    msg += ": ";
    msg += st.message;
  }
  return Status(CodeFor(st.code, st.reason), std::move(msg));
}

}  // namespace

Status HttpError(std::string_view method, std::string_view path, int http_code,
                 std::string_view body) {
  std::string what(method);
  what += ' ';
  what += path;
  // With protobuf asked for, the apiserver sends its Status as protobuf too.
  return Build(what, DecodeProtoApiStatus(body, http_code));
}

Status WatchError(std::string_view path, const api::ApiStatus& status) {
  return Build("watch " + std::string(path), status);
}

}  // namespace stowage::client
