# Sourced by the tests of this folder: free_port prints a loopback port nothing listens on,
# below the kernel's ephemeral range, so that no outgoing connection of the apiserver, etcd or a
# client holds it as its local port when the caller binds it (a port from the ephemeral range
# failed so in a CI run: "failed to listen on 127.0.0.1:35910: Address already in use").
# The caller defines fail.
free_port() {
  local low
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range
  [ "$low" -gt 11024 ] || fail "the ephemeral port range starts at $low, leaving no room below it"
  for _ in $(seq 1 50); do
    local p=$((10000 + RANDOM % (low - 10000)))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  fail "no free port"
}
