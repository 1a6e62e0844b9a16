package wire

import (
	"sync"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

// PendingSlots bounds the exchanges kept between calls: token t lives in slot t mod
// PendingSlots until Take frees it or, with every slot holding an exchange, a newer token
// takes it. A request whose client went away never comes back for its token, and its slot
// is reused once the table is full; a request still in flight then (far beyond what one
// isolate serves at once) may be refused.
const PendingSlots = 4096

// maxToken keeps tokens small positive integers, exact in a JS number; 0 is never a token.
const maxToken = 1 << 30

// Exchange is a request between two calls from worker.mjs.
type Exchange struct {
	// Token is what the answers carry and worker.mjs sends back; 0 until Keep.
	Token int
	Ex    *edge.Exchange
	Req   *edge.Request
}

// Pending keeps exchanges between two calls from worker.mjs, by token. The zero value is
// ready. Its methods are safe to call from any goroutine: in js/wasm only one runs at a
// time, but nothing may rely on where they switch.
//
// Not generic on purpose: a generic table's dictionary makes the linker keep every method
// of every type the stored value reaches (time.Time's formatting among them), about 45 KB
// of the gzip'd Wasm.
type Pending struct {
	mu    sync.Mutex
	next  int
	slots [PendingSlots]*Exchange
	used  int // slots holding an exchange
}

// Keep gives x a new token and stores it there. The token is the next one whose slot is
// free: a request pending long (a long poll's upstream fetch) keeps its slot however many
// requests come and go meanwhile. Only with every slot pending does an exchange give way:
// the one in the next token's slot.
func (p *Pending) Keep(x *Exchange) int {
	p.mu.Lock()
	for {
		p.next++
		if p.next > maxToken {
			p.next = 1
		}
		if p.used == PendingSlots || p.slots[slot(p.next)] == nil {
			break
		}
	}
	x.Token = p.next
	p.store(x)
	p.mu.Unlock()
	return x.Token
}

// store puts x in its token's slot and counts the slot used; p.mu must be held.
func (p *Pending) store(x *Exchange) {
	i := slot(x.Token)
	if p.slots[i] == nil {
		p.used++
	}
	p.slots[i] = x
}

// Put stores x again under its token, which Keep gave it and Take has since taken.
func (p *Pending) Put(x *Exchange) {
	p.mu.Lock()
	p.store(x)
	p.mu.Unlock()
}

// Take removes and returns the exchange kept under token; nil when there is none, or when
// a newer token has taken its slot.
func (p *Pending) Take(token int) *Exchange {
	// No defer: nothing here can panic, and the Wasm pays for each defer's frame code.
	p.mu.Lock()
	i := slot(token)
	x := p.slots[i]
	if x == nil || x.Token != token {
		x = nil
	} else {
		p.slots[i] = nil
		p.used--
	}
	p.mu.Unlock()
	return x
}

// Kept is how many exchanges are kept.
func (p *Pending) Kept() int {
	p.mu.Lock()
	n := p.used
	p.mu.Unlock()
	return n
}

// Unlocked reports whether p's lock is free (see edge.Handler.Unlocked).
func (p *Pending) Unlocked() bool { return edge.MutexesFree(&p.mu) }

// slot is token's slot. Tokens worker.mjs sends are ones Keep made, but a negative one must
// not index outside the table.
func slot(token int) int {
	i := token % PendingSlots
	if i < 0 {
		i += PendingSlots
	}
	return i
}
