// Package loopback holds what the test-cluster programs share about listening on 127.0.0.1.
package loopback

import "net"

// FreePort asks the kernel for an unused loopback port; the small race until the caller binds it
// again is acceptable for a test harness.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
