package router

import (
	"io"
	"sync"
)

// replayableBody is a client's request body on its way upstream, able to start over as long as
// none of it can have reached the upstream. A request is sent again only after a reused
// connection refused its first write (errSpokeWhileIdle); by then the HostClient may already
// have read the start of the body into its write buffer, so what was read is kept, up to a
// bound no refused attempt can pass (the write buffer fills, and is written, before more is
// read).
type replayableBody struct {
	src      io.Reader
	kept     []byte // what was read from src, while within replayLimit
	pos      int    // how much of kept this attempt has read
	overflow bool   // more than replayLimit was read: this body cannot start over
}

// replayLimit is more than the HostClient can read of a body before its first write.
const replayLimit = 2 * upstreamWriteBufferSize

var replayPool = sync.Pool{New: func() any { return new(replayableBody) }}

func acquireReplayableBody(src io.Reader) *replayableBody {
	b := replayPool.Get().(*replayableBody) //nolint:forcetypeassert // the pool holds *replayableBody only
	b.src = src
	return b
}

func releaseReplayableBody(b *replayableBody) {
	*b = replayableBody{kept: b.kept[:0]}
	replayPool.Put(b)
}

func (b *replayableBody) Read(p []byte) (int, error) {
	if b.pos < len(b.kept) {
		n := copy(p, b.kept[b.pos:])
		b.pos += n
		return n, nil
	}
	n, err := b.src.Read(p)
	if !b.overflow {
		if len(b.kept)+n <= replayLimit {
			b.kept = append(b.kept, p[:n]...)
			b.pos += n
		} else {
			b.overflow = true
			b.kept = b.kept[:0]
			b.pos = 0
		}
	}
	return n, err
}

// rewind starts the body over, reporting whether it can; a nil body (a request without one)
// always can.
func (b *replayableBody) rewind() bool {
	if b == nil {
		return true
	}
	b.pos = 0
	return !b.overflow
}
