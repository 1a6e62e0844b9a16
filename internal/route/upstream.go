package route

import (
	"strconv"
	"strings"
)

// Upstream is a tenant service in the cluster, written "namespace/service:port".
type Upstream struct {
	Namespace string
	Service   string
	Port      int
}

// ParseUpstream parses "namespace/service:port". Namespace and service are DNS labels (the
// Kubernetes rule), port is 1–65535.
func ParseUpstream(s string) (Upstream, error) {
	ns, rest, ok := strings.Cut(s, "/")
	if !ok {
		return Upstream{}, fieldErr("dynamic.upstream", ErrInvalidField, `must be "namespace/service:port"`)
	}
	svc, port, ok := strings.Cut(rest, ":")
	if !ok || !IsDNSLabel(ns) || !IsDNSLabel(svc) || !isPort(port) || port[0] == '0' {
		return Upstream{}, fieldErr("dynamic.upstream", ErrInvalidField, `must be "namespace/service:port" with DNS-label names and a port 1-65535`)
	}
	p, _ := strconv.Atoi(port)
	return Upstream{Namespace: ns, Service: svc, Port: p}, nil
}

// String returns the canonical "namespace/service:port" form.
func (u Upstream) String() string {
	return u.Namespace + "/" + u.Service + ":" + strconv.Itoa(u.Port)
}

// ClusterAddr is the in-cluster address of the service: "service.namespace.svc.cluster.local:port".
func (u Upstream) ClusterAddr() string {
	return u.Service + "." + u.Namespace + ".svc.cluster.local:" + strconv.Itoa(u.Port)
}
