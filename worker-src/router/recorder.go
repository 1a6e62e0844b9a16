package router

import "net/http"

// recorder notes the status and body size written to the client. It exposes the underlying
// writer through Unwrap, so http.ResponseController (which ReverseProxy uses to flush and to
// hijack for upgrades) reaches the real connection.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recorder) WriteHeader(status int) {
	// 1xx responses are informational and may precede the real one.
	if w.status == 0 && status >= 200 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
