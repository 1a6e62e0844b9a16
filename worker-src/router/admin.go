package router

import "net/http"

// Admin returns the operator handler, meant for a second port that the tunnel does not reach:
//
//   - GET /healthz: 200 while the process serves at all (liveness);
//   - GET /readyz: 200, or 503 once SetDraining was called (readiness);
//   - GET /metrics: request metrics in the Prometheus text format.
func (rt *Router) Admin() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writePlain(w, http.StatusOK, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if rt.draining.Load() {
			writePlain(w, http.StatusServiceUnavailable, "draining\n")
			return
		}
		writePlain(w, http.StatusOK, "ready\n")
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_ = rt.metrics.writeText(w, !rt.draining.Load())
	})
	return mux
}

func writePlain(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
