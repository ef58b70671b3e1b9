// sd_notify(3) without libsystemd: tells the service manager about state changes ("READY=1" once
// the scheduler serves, "STOPPING=1" on shutdown, "STATUS=..." free text, "WATCHDOG=1") by
// sending one AF_UNIX datagram to the socket named in $NOTIFY_SOCKET. A path ("/run/...") or an
// abstract name ("@name") is accepted; other forms (vsock) are not supported.
//
// Thread-safe: each call opens, uses and closes its own socket. Never blocks for long (the
// datagram is sent with MSG_DONTWAIT) and never throws.
#pragma once

#include <string>
#include <string_view>

namespace stowage::sdnotify {

// Sends state to $NOTIFY_SOCKET. Returns true when the datagram was sent; false when
// NOTIFY_SOCKET is unset or empty (not run by systemd with Type=notify), or the socket is
// unusable (the reason is logged at -v=2; callers carry on either way).
bool Notify(std::string_view state);

// The same with an explicit socket name instead of $NOTIFY_SOCKET (for tests).
bool NotifySocket(std::string_view socket_name, std::string_view state);

// "STATUS=" + text with newlines replaced by spaces, since each line of a notification is one
// assignment.
std::string StatusLine(std::string_view text);

}  // namespace stowage::sdnotify
