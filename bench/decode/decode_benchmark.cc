// bench_decode: the cost of turning the API's bytes into stowage's objects, for the kinds every
// cycle reads (Pods, Nodes), in both encodings the client speaks: one object, a list, and the
// events of a watch stream, from the captured fixtures of tests/fixtures/proto (one real object
// of each kind, the same objects as JSON and as protobuf). Run before and after a change to the
// codecs: `build/bench/bench_decode --benchmark_repetitions=5 --benchmark_report_aggregates_only`.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/client/protobuf_decode.h"
#include "tests/testing/fixtures.h"

namespace stowage {
namespace {

using testing::ReadFixture;

template <typename T>
void DecodeJson(benchmark::State& state, const char* fixture) {
  const std::string body = ReadFixture(fixture);
  for (auto _ : state) {
    auto obj = api::Decode<T>(body);
    if (!obj.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(obj);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(body.size()));
}

template <typename T>
void DecodeProto(benchmark::State& state, const char* fixture) {
  const std::string body = ReadFixture(fixture);
  for (auto _ : state) {
    auto obj = client::DecodeProto<T>(body);
    if (!obj.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(obj);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(body.size()));
}

template <typename T>
void DecodeJsonList(benchmark::State& state, const char* fixture) {
  const std::string body = ReadFixture(fixture);
  size_t items = 0;
  for (auto _ : state) {
    auto list = api::DecodeList<T>(body);
    if (!list.ok()) state.SkipWithError("decode failed");
    items += list.ok() ? list->items.size() : 0;
  }
  state.SetItemsProcessed(int64_t(items));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(body.size()));
}

template <typename T>
void DecodeProtoList(benchmark::State& state, const char* fixture) {
  const std::string body = ReadFixture(fixture);
  size_t items = 0;
  for (auto _ : state) {
    auto list = client::DecodeProtoList<T>(body);
    if (!list.ok()) state.SkipWithError("decode failed");
    items += list.ok() ? list->items.size() : 0;
  }
  state.SetItemsProcessed(int64_t(items));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(body.size()));
}

// The watch stream's events, one JSON line each, as the informer decodes them.
void WatchJson(benchmark::State& state) {
  const std::string stream = ReadFixture("proto/watch-pods.jsonl");
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < stream.size();) {
    size_t end = stream.find('\n', pos);
    if (end == std::string::npos) end = stream.size();
    if (end > pos) lines.push_back(std::string_view(stream).substr(pos, end - pos));
    pos = end + 1;
  }
  for (auto _ : state) {
    for (std::string_view line : lines) {
      auto ev = api::DecodeWatchEvent<api::Pod>(line);
      benchmark::DoNotOptimize(ev);
    }
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(lines.size()));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(stream.size()));
}

// The same events as protobuf frames, split as they arrive from the connection.
void WatchProto(benchmark::State& state) {
  const std::string stream = ReadFixture("proto/watch-pods.pb");
  size_t events = 0;
  for (auto _ : state) {
    client::ProtoFrameSplitter splitter(api::kMaxObjectBytes);
    Status st = splitter.Feed(stream, [&](std::string_view frame) {
      auto ev = client::DecodeProtoWatchEvent<api::Pod>(frame);
      benchmark::DoNotOptimize(ev);
      ++events;
      return true;
    });
    if (!st.ok()) state.SkipWithError("splitting failed");
  }
  state.SetItemsProcessed(int64_t(events));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(stream.size()));
}

void PodJson(benchmark::State& s) { DecodeJson<api::Pod>(s, "proto/pod-captured.json"); }
void PodProto(benchmark::State& s) { DecodeProto<api::Pod>(s, "proto/pod-captured.pb"); }
void NodeJson(benchmark::State& s) { DecodeJson<api::Node>(s, "proto/node-captured.json"); }
void NodeProto(benchmark::State& s) { DecodeProto<api::Node>(s, "proto/node-captured.pb"); }
void PodListJson(benchmark::State& s) { DecodeJsonList<api::Pod>(s, "proto/podlist.json"); }
void PodListProto(benchmark::State& s) { DecodeProtoList<api::Pod>(s, "proto/podlist.pb"); }
void NodeListJson(benchmark::State& s) { DecodeJsonList<api::Node>(s, "proto/nodelist.json"); }
void NodeListProto(benchmark::State& s) { DecodeProtoList<api::Node>(s, "proto/nodelist.pb"); }
BENCHMARK(PodJson);
BENCHMARK(PodProto);
BENCHMARK(NodeJson);
BENCHMARK(NodeProto);
BENCHMARK(PodListJson);
BENCHMARK(PodListProto);
BENCHMARK(NodeListJson);
BENCHMARK(NodeListProto);
BENCHMARK(WatchJson);
BENCHMARK(WatchProto);

}  // namespace
}  // namespace stowage

BENCHMARK_MAIN();
