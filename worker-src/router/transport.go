package router

import (
	"net"
	"net/http"
	"time"
)

// newTransport is the default upstream Transport for what the direct path does not carry
// (bodies, upgrades): bounded connect and header waits, unbounded bodies, and a warm pool of
// keep-alive connections per tenant service.
func newTransport(dialTimeout, responseHeaderTimeout time.Duration) *http.Transport {
	if dialTimeout <= 0 {
		dialTimeout = DefaultDialTimeout
	}
	if responseHeaderTimeout <= 0 {
		responseHeaderTimeout = DefaultResponseHeaderTimeout
	}
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	return &http.Transport{
		// No Proxy: an HTTP_PROXY in the pod's environment must not divert tenant traffic.
		DialContext:           dialer.DialContext,
		ResponseHeaderTimeout: responseHeaderTimeout,
		MaxIdleConns:          4 * DefaultMaxIdleConnsPerHost,
		MaxIdleConnsPerHost:   DefaultMaxIdleConnsPerHost,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		// The client's Accept-Encoding goes upstream untouched and the body comes back as sent;
		// transparent gunzip would buffer and re-encode nothing useful.
		DisableCompression: true,
		ReadBufferSize:     32 << 10,
		WriteBufferSize:    32 << 10,
	}
}
