// Command testcluster runs a real etcd and a real kube-apiserver (the release go.mod pins) in one process, on
// loopback only, for stowage's integration tests, demo and benchmarks.
//
// Usage: testcluster -dir DIR [-port N] [-storage] [-dra]
//
// DIR keeps everything: etcd's data, the serving certificate, the admin token, the chosen port
// and the admin kubeconfig (DIR/kubeconfig). Starting again with the same DIR restarts the same
// cluster (same port, credentials and objects), which is how tests stop and restart the
// apiserver under a running client. The program prints "READY <url>" once /readyz answers 200
// and shuts down cleanly on SIGTERM or SIGINT; it never deletes DIR (tests/cluster/down does).
//
// With -storage it also runs, once the apiserver is ready and before READY, upstream
// kube-controller-manager with only the PersistentVolume controllers and the test provisioner
// (stowage.dev/test-provisioner), so claims really get volumes (storage.go; logs in DIR).
// With -dra it runs, at the same point, kube-controller-manager's resourceclaim controller
// (sharing the process with -storage's controllers) and the test DRA driver gpu.example.com
// (tests/cluster/cmd/testdradriver), which publishes ResourceSlices for every Node.
package main

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"stowage.dev/tests/cluster/internal/loopback"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "testcluster:", err)
	os.Exit(1)
}

// state is what must survive a restart so clients keep working against the same endpoint.
type state struct {
	dir string
}

func (s state) path(name string) string { return filepath.Join(s.dir, name) }

// readOrCreate returns the file's contents, creating it with make() the first time.
func (s state) readOrCreate(name string, make func() ([]byte, error)) []byte {
	p := s.path(name)
	if b, err := os.ReadFile(p); err == nil {
		return b
	} else if !errors.Is(err, os.ErrNotExist) {
		fail(err)
	}
	b, err := make()
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		fail(err)
	}
	return b
}

func freePort() int {
	p, err := loopback.FreePort()
	if err != nil {
		fail(err)
	}
	return p
}

func (s state) port(name string, fixed int) int {
	b := s.readOrCreate(name, func() ([]byte, error) {
		p := fixed
		if p == 0 {
			p = freePort()
		}
		return []byte(strconv.Itoa(p)), nil
	})
	p, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		fail(fmt.Errorf("%s: %w", s.path(name), err))
	}
	return p
}

func startEtcd(s state) (*embed.Etcd, url.URL) {
	ec := embed.NewConfig()
	ec.Dir = s.path("etcd")
	ec.UnsafeNoFsync = true // throw-away data: durability is not worth the fsync latency
	ec.LogLevel = "error"
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", s.port("etcd-client-port", 0))}
	peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", s.port("etcd-peer-port", 0))}
	ec.ListenClientUrls, ec.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	ec.ListenPeerUrls, ec.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	ec.InitialCluster = ec.InitialClusterFromName(ec.Name)
	ec.QuotaBackendBytes = 8 << 30
	etcd, err := embed.StartEtcd(ec)
	if err != nil {
		fail(fmt.Errorf("starting etcd: %w", err))
	}
	select {
	case <-etcd.Server.ReadyNotify():
	case <-time.After(time.Minute):
		fail(errors.New("etcd did not become ready within a minute"))
	}
	return etcd, client
}

func writeKubeconfig(s state, server string, ca []byte, token string) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["testcluster"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["testcluster"] = &clientcmdapi.Context{Cluster: "testcluster", AuthInfo: "admin"}
	kc.CurrentContext = "testcluster"
	if err := clientcmd.WriteToFile(*kc, s.path("kubeconfig")); err != nil {
		fail(err)
	}
}

// waitReady returns once the apiserver's /readyz answers 200. The probe skips certificate
// checks because it only looks at our own loopback server; clients verify the CA.
func waitReady(server, token string) {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for {
		req, _ := http.NewRequest("GET", server+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if r, err := hc.Do(req); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func main() {
	dir := flag.String("dir", "", "state directory (created if missing, reused on restart)")
	port := flag.Int("port", 0, "apiserver port on 127.0.0.1 for a new cluster (0: any free port)")
	extra := flag.String("apiserver-args", "", "extra kube-apiserver flags, space separated")
	storage := flag.Bool("storage", false,
		"also run kube-controller-manager's PersistentVolume controllers and the test provisioner")
	dra := flag.Bool("dra", false,
		"also run kube-controller-manager's resourceclaim controller and the test DRA driver")
	flag.Parse()
	if *dir == "" {
		fail(errors.New("-dir is required"))
	}
	if *storage {
		binaries("-storage", "kube-controller-manager", "testprovisioner")
	}
	if *dra {
		binaries("-dra", "kube-controller-manager", "testdradriver")
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		fail(err)
	}
	s := state{dir: *dir}

	etcd, etcdURL := startEtcd(s)
	defer etcd.Close()

	crtF, keyF := s.path("apiserver.crt"), s.path("apiserver.key")
	if _, err := os.Stat(crtF); errors.Is(err, os.ErrNotExist) {
		crt, key, err := cert.GenerateSelfSignedCertKey("127.0.0.1", nil, []string{"localhost"})
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(keyF, key, 0o600); err != nil {
			fail(err)
		}
		if err := os.WriteFile(crtF, crt, 0o600); err != nil {
			fail(err)
		}
	}
	crt, err := os.ReadFile(crtF) // leaf followed by its CA: usable as the kubeconfig CA
	if err != nil {
		fail(err)
	}
	s.readOrCreate("sa.key", keyutil.MakeEllipticPrivateKeyPEM)
	token := string(s.readOrCreate("token", func() ([]byte, error) {
		raw := make([]byte, 16)
		_, err := rand.Read(raw)
		return []byte(hex.EncodeToString(raw)), err
	}))
	s.readOrCreate("tokens.csv", func() ([]byte, error) {
		return []byte(token + ",admin,admin,system:masters\n"), nil
	})
	apiPort := s.port("apiserver-port", *port)
	server := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	writeKubeconfig(s, server, crt, token)
	if err := os.WriteFile(s.path("etcd-url"), []byte(etcdURL.String()), 0o600); err != nil {
		fail(err)
	}

	// Children start once the apiserver is ready and stop on the signal that stops it.
	var children children
	go func() {
		waitReady(server, token)
		if *storage || *dra {
			children.Start(func() []*child { return startChildren(s, *storage, *dra) })
		}
		fmt.Println("READY", server)
	}()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-signals; children.Stop() }()

	issuer := "https://kubernetes.default.svc.cluster.local"
	args := []string{
		"--etcd-servers=" + etcdURL.String(),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--tls-cert-file=" + crtF, "--tls-private-key-file=" + keyF, "--cert-dir=" + *dir,
		"--token-auth-file=" + s.path("tokens.csv"),
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=" + issuer, "--api-audiences=" + issuer,
		"--service-account-key-file=" + s.path("sa.key"),
		"--service-account-signing-key-file=" + s.path("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none",
		// No controller-manager runs (with -storage or -dra only a few of its controllers
		// do): ServiceAccount admission would reject every pod and
		// TaintNodesByCondition would leave every new node tainted not-ready forever.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		"--profiling=false",
	}
	if *extra != "" {
		args = append(args, strings.Fields(*extra)...)
	}
	cmd := app.NewAPIServerCommand()
	cmd.SetArgs(args)
	code := cli.Run(cmd) // blocks until SIGTERM/SIGINT
	children.Stop()
	etcd.Close()
	os.Exit(code)
}
