// Command testextender is a scheduler extender for stowage's integration tests: it answers the
// filter, prioritize, preempt and bind verbs of the extender wire format
// (k8s.io/kube-scheduler/extender/v1) by simple rules given as flags, and appends one JSON line
// per call to --record so a test can see what it was sent.
//
// Usage: testextender --listen 127.0.0.1:PORT [rules] [--tls-cert F --tls-key F [--client-ca F]]
//
// Rules: --refuse-label k=v (filter: FailedNodes), --unresolvable-label k=v (filter:
// FailedAndUnresolvableNodes), --prefer-label k=v (prioritize: 10 for those nodes, 0 for the
// others), --preempt-node NAME (preempt: keep only that node's victims), --kubeconfig F (bind:
// POST the binding through the API; node labels for NodeNames requests). Modes: --slow D sleeps
// before every answer, --fail answers 500. With --client-ca a client certificate signed by it is
// required. It prints "READY <url>" once listening; SIGTERM stops it.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

type server struct {
	refuse, unresolvable, prefer string // "key=value"
	preemptNode                  string
	slow                         time.Duration
	fail                         bool
	client                       kubernetes.Interface
	recordMu                     sync.Mutex
	record                       *os.File
	bodies                       string // directory for the request bodies, <verb>-<n>.json
	calls                        int    // guarded by recordMu
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "testextender:", err)
	os.Exit(1)
}

func hasLabel(labels map[string]string, rule string) bool {
	if rule == "" {
		return false
	}
	k, v, _ := strings.Cut(rule, "=")
	got, ok := labels[k]
	return ok && got == v
}

// note appends one line about a call: the verb, the pod and the nodes it was sent.
func (s *server) note(verb string, pod *v1.Pod, nodes []string, extra map[string]any) {
	if s.record == nil {
		return
	}
	line := map[string]any{"verb": verb, "nodes": nodes}
	if pod != nil {
		line["pod"] = pod.Namespace + "/" + pod.Name
	}
	for k, v := range extra {
		line[k] = v
	}
	b, _ := json.Marshal(line)
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	s.record.Write(append(b, '\n'))
}

// nodesOf returns the nodes of args with their labels: from the NodeList, or looked up through
// the API for NodeNames.
func (s *server) nodesOf(ctx context.Context, args *extenderv1.ExtenderArgs) ([]string, map[string]map[string]string) {
	labels := map[string]map[string]string{}
	var names []string
	if args.Nodes != nil {
		for _, n := range args.Nodes.Items {
			names = append(names, n.Name)
			labels[n.Name] = n.Labels
		}
		return names, labels
	}
	if args.NodeNames != nil {
		names = *args.NodeNames
		for _, name := range names {
			if s.client == nil {
				continue
			}
			if n, err := s.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err == nil {
				labels[name] = n.Labels
			}
		}
	}
	return names, labels
}

func (s *server) filter(r *http.Request, args *extenderv1.ExtenderArgs) any {
	names, labels := s.nodesOf(r.Context(), args)
	s.note("filter", args.Pod, names, nil)
	res := extenderv1.ExtenderFilterResult{
		FailedNodes:                extenderv1.FailedNodesMap{},
		FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{},
	}
	var keep []string
	for _, n := range names {
		switch {
		case hasLabel(labels[n], s.unresolvable):
			res.FailedAndUnresolvableNodes[n] = "node(s) refused by the test extender for good"
		case hasLabel(labels[n], s.refuse):
			res.FailedNodes[n] = "node(s) refused by the test extender"
		default:
			keep = append(keep, n)
		}
	}
	if args.Nodes != nil {
		res.Nodes = &v1.NodeList{}
		for _, n := range args.Nodes.Items {
			for _, k := range keep {
				if k == n.Name {
					res.Nodes.Items = append(res.Nodes.Items, n)
				}
			}
		}
	} else {
		res.NodeNames = &keep
	}
	return res
}

func (s *server) prioritize(r *http.Request, args *extenderv1.ExtenderArgs) any {
	names, labels := s.nodesOf(r.Context(), args)
	s.note("prioritize", args.Pod, names, nil)
	list := extenderv1.HostPriorityList{}
	for _, n := range names {
		score := int64(0)
		if hasLabel(labels[n], s.prefer) {
			score = extenderv1.MaxExtenderPriority
		}
		list = append(list, extenderv1.HostPriority{Host: n, Score: score})
	}
	return list
}

func (s *server) preempt(args *extenderv1.ExtenderPreemptionArgs) any {
	res := extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{}}
	var nodes []string
	keep := func(node string) bool { return s.preemptNode == "" || node == s.preemptNode }
	for node, v := range args.NodeNameToMetaVictims {
		nodes = append(nodes, node)
		if keep(node) {
			res.NodeNameToMetaVictims[node] = v
		}
	}
	for node, v := range args.NodeNameToVictims {
		nodes = append(nodes, node)
		if !keep(node) {
			continue
		}
		meta := &extenderv1.MetaVictims{NumPDBViolations: v.NumPDBViolations}
		for _, p := range v.Pods {
			meta.Pods = append(meta.Pods, &extenderv1.MetaPod{UID: string(p.UID)})
		}
		res.NodeNameToMetaVictims[node] = meta
	}
	s.note("preempt", args.Pod, nodes, nil)
	return res
}

func (s *server) bind(r *http.Request, args *extenderv1.ExtenderBindingArgs) any {
	s.note("bind", &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: args.PodNamespace, Name: args.PodName}},
		[]string{args.Node}, nil)
	if s.client == nil {
		return extenderv1.ExtenderBindingResult{Error: "testextender: no --kubeconfig to bind with"}
	}
	b := &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: args.PodNamespace, Name: args.PodName, UID: args.PodUID,
			Annotations: map[string]string{"testextender/bound-by": "testextender"}},
		Target: v1.ObjectReference{Kind: "Node", Name: args.Node},
	}
	if err := s.client.CoreV1().Pods(args.PodNamespace).Bind(r.Context(), b, metav1.CreateOptions{}); err != nil {
		return extenderv1.ExtenderBindingResult{Error: err.Error()}
	}
	return extenderv1.ExtenderBindingResult{}
}

// handle decodes the verb's arguments into a fresh value from newArgs and answers with answer.
func handle[T any](s *server, answer func(*http.Request, *T) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.slow > 0 {
			time.Sleep(s.slow)
		}
		if s.fail {
			http.Error(w, "testextender: failing on purpose", http.StatusInternalServerError)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if s.bodies != "" {
			s.recordMu.Lock()
			s.calls++
			name := fmt.Sprintf("%s-%d.json", strings.TrimPrefix(r.URL.Path, "/"), s.calls)
			s.recordMu.Unlock()
			if err := os.WriteFile(filepath.Join(s.bodies, name), body, 0o644); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		args := new(T)
		if err := json.Unmarshal(body, args); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer(r, args))
	}
}

func main() {
	s := &server{}
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	flag.StringVar(&s.refuse, "refuse-label", "", "filter: refuse nodes with this label (k=v)")
	flag.StringVar(&s.unresolvable, "unresolvable-label", "", "filter: refuse nodes with this label unresolvably (k=v)")
	flag.StringVar(&s.prefer, "prefer-label", "", "prioritize: score 10 for nodes with this label (k=v)")
	flag.StringVar(&s.preemptNode, "preempt-node", "", "preempt: keep only this node's victims")
	flag.DurationVar(&s.slow, "slow", 0, "sleep this long before every answer")
	flag.BoolVar(&s.fail, "fail", false, "answer every call with 500")
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig for binding and node lookups")
	record := flag.String("record", "", "file to append one JSON line per call to")
	flag.StringVar(&s.bodies, "record-bodies", "", "write each request body to <dir>/<verb>-<n>.json")
	cert := flag.String("tls-cert", "", "serve HTTPS with this certificate")
	key := flag.String("tls-key", "", "the certificate's key")
	clientCA := flag.String("client-ca", "", "require client certificates signed by this CA")
	flag.Parse()

	if *kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
		if err != nil {
			fail(err)
		}
		if s.client, err = kubernetes.NewForConfig(cfg); err != nil {
			fail(err)
		}
	}
	if *record != "" {
		f, err := os.OpenFile(*record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fail(err)
		}
		s.record = f
	}
	mux := http.NewServeMux()
	mux.Handle("/filter", handle(s, s.filter))
	mux.Handle("/prioritize", handle(s, s.prioritize))
	mux.Handle("/preempt", handle(s, func(_ *http.Request, a *extenderv1.ExtenderPreemptionArgs) any { return s.preempt(a) }))
	mux.Handle("/bind", handle(s, s.bind))

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fail(err)
	}
	srv := &http.Server{Handler: mux}
	scheme := "http"
	if *cert != "" {
		scheme = "https"
		srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		if *clientCA != "" {
			pem, err := os.ReadFile(*clientCA)
			if err != nil {
				fail(err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				fail(fmt.Errorf("no certificate in %s", *clientCA))
			}
			srv.TLSConfig.ClientCAs = pool
			srv.TLSConfig.ClientAuth = tls.RequireAndVerifyClientCert
		}
	}
	fmt.Printf("READY %s://%s\n", scheme, ln.Addr())
	if *cert != "" {
		err = srv.ServeTLS(ln, *cert, *key)
	} else {
		err = srv.Serve(ln)
	}
	fail(err)
}
