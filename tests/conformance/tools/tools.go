//go:build tools

// Package tools pins the upstream commands this module builds, so go.mod and
// go.sum record their dependencies.
package tools

import _ "k8s.io/kubernetes/cmd/kube-controller-manager"
