//go:build tools

// Package tools pins kwok, which plays the kubelets in the conformance cluster. It is a module of its own
// because kwok pins its own client-go, which must not move the Kubernetes module's.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
