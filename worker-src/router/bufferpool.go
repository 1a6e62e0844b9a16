package router

import "sync"

// copyBufferSize matches what ReverseProxy allocates per response when it has no pool.
const copyBufferSize = 32 << 10

// bufferPool recycles ReverseProxy's body-copy buffers: without it every request allocates
// 32 KiB, which under load is most of the router's garbage.
type bufferPool struct{ pool sync.Pool }

func newBufferPool() *bufferPool {
	return &bufferPool{pool: sync.Pool{New: func() any {
		b := make([]byte, copyBufferSize)
		return &b
	}}}
}

func (p *bufferPool) Get() []byte {
	return *p.pool.Get().(*[]byte) //nolint:forcetypeassert // New and Put store *[]byte only
}

func (p *bufferPool) Put(b []byte) {
	if cap(b) == copyBufferSize {
		b = b[:copyBufferSize]
		p.pool.Put(&b)
	}
}
