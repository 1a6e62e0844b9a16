package kvmigrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Options configure one migration. Zero values take the documented defaults.
type Options struct {
	// Client is the API client (internal/cloudflare.New: its rate limit, retries and logging
	// apply to every call). Required.
	Client *kdcf.Client
	// AccountID is the account holding the namespaces. Required.
	AccountID string
	// Sources are the namespaces copied from, in order: a key that several sources hold with
	// the same content is taken from the first. At least one; each once.
	Sources []string
	// Target is the namespace copied into. Required; not one of Sources.
	Target string

	// DryRun lists and compares, writes nothing and reports what a run would do.
	DryRun bool
	// Prefer names the source (one of Sources) whose content is copied for a key that sources
	// hold with different content. Default "": such a key is reported and not copied.
	Prefer string
	// Overwrite replaces target keys that hold other content than the sources. Default false:
	// they are reported and left alone (nothing is overwritten silently: the target may already
	// be written by the provider after the switch).
	Overwrite bool

	// Progress receives a progress line's data every ProgressEvery keys or ProgressInterval,
	// whichever comes first, and at the end of each step. Default nil: no progress.
	Progress func(Progress)
	// ProgressEvery is the key count between progress reports; default 1000.
	ProgressEvery int
	// ProgressInterval is the time between progress reports; default 10 s.
	ProgressInterval time.Duration

	// Now is the clock used to tell expiring keys; default time.Now.
	Now func() time.Time
	// BulkWritePairs bounds the pairs of one bulk write; default (and at most) MaxBulkWritePairs.
	BulkWritePairs int
	// BulkWriteBytes bounds one bulk write's body; default (and at most) MaxBulkWriteBytes.
	BulkWriteBytes int
	// Parallel bounds concurrent bulk reads; default 4. The client's rate limit paces them all.
	Parallel int
}

// Progress is one progress report.
type Progress struct {
	// Step is "list", "read", "write", "delta" or "verify".
	Step string
	// Namespace is the namespace the step works on ("" for writes across sources).
	Namespace string
	// Done is how many keys the step has handled; Total how many it will (0 when unknown, as
	// while listing).
	Done, Total int
	// Final marks the step's last report.
	Final bool
}

// expirySlack is added to KV's 60 s minimum when telling whether a key expires too soon to be
// written: the batch may wait for the rate limit before it is sent.
const expirySlack = 30 * time.Second

func (o Options) withDefaults() (Options, error) {
	if o.Client == nil {
		return o, errors.New("kvmigrate: Options.Client is required")
	}
	if o.AccountID == "" {
		return o, errors.New("an account id is required")
	}
	if len(o.Sources) == 0 {
		return o, errors.New("name at least one source namespace (--from)")
	}
	if o.Target == "" {
		return o, errors.New("name the target namespace (--to)")
	}
	seen := map[string]bool{}
	for _, s := range o.Sources {
		if s == o.Target {
			return o, fmt.Errorf("namespace %s is both a source and the target", s)
		}
		if seen[s] {
			return o, fmt.Errorf("source namespace %s is named twice", s)
		}
		seen[s] = true
	}
	if o.Prefer != "" && !seen[o.Prefer] {
		return o, fmt.Errorf("the preferred source %s is not one of the sources", o.Prefer)
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 1000
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = 10 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.BulkWritePairs <= 0 || o.BulkWritePairs > MaxBulkWritePairs {
		o.BulkWritePairs = MaxBulkWritePairs
	}
	if o.BulkWriteBytes <= 0 || o.BulkWriteBytes > MaxBulkWriteBytes {
		o.BulkWriteBytes = MaxBulkWriteBytes
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	return o, nil
}

// keyState is what the run decided, or did, for one key.
type keyState int

const (
	stateIdentical     keyState = iota + 1 // already identical in the target
	stateCopy                              // to be written (dry run: would be)
	stateCopied                            // written and confirmed by the bulk result
	stateConflict                          // sources disagree and no source is preferred
	stateTargetDiffers                     // the target holds other content; left alone
	stateExpiring                          // expires too soon to be written
	stateFailed                            // the write was not confirmed
	stateGone                              // no source holds it any more (deleted during the copy)
)

type keyStatus struct {
	state keyState
	owner int // index of the source the content comes from; -1 when none
	entry Entry
	hash  Hash
	err   string
	// replaced: the target held other content, overwritten by Options.Overwrite.
	replaced bool
}

type source struct {
	id, title string
	listed    map[string]listedKey // the first listing (the delta pass compares with it)
	entries   map[string]Entry     // content as last read
}

type migration struct {
	opts Options
	api  *kvAPI
	rep  *Report
	srcs []*source
	// targetHash is the target's content as far as this run knows: read at the start for the
	// keys the sources hold, then what this run wrote.
	targetHash map[string]Hash
	// baseline is each key's source content when the copy planned it; the delta pass may
	// replace a target key that still holds it (the run's own copy of an older version).
	baseline  map[string]Hash
	status    map[string]*keyStatus
	conflicts map[string]*Conflict
	failed    map[string]string
	// finalKeys are the keys the target holds after the copy: its name filter's names.
	finalKeys map[string]struct{}
}

// Run migrates and verifies, and returns the report. The error is non-nil only when the options
// are unusable (nothing was done); a run that stops early returns its report with Error set.
func Run(ctx context.Context, opts Options) (*Report, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &migration{
		opts:       opts,
		api:        &kvAPI{client: opts.Client, accountID: opts.AccountID, parallel: opts.Parallel},
		rep:        &Report{DryRun: opts.DryRun, Target: TargetReport{ID: opts.Target, KeysAfter: -1}},
		targetHash: map[string]Hash{},
		baseline:   map[string]Hash{},
		status:     map[string]*keyStatus{},
		conflicts:  map[string]*Conflict{},
		failed:     map[string]string{},
	}
	err = m.run(ctx)
	m.finish(err)
	return m.rep, nil
}

func (m *migration) run(ctx context.Context) error {
	// The namespaces first: a typo must fail before anything is read or written.
	for _, id := range m.opts.Sources {
		title, err := m.api.namespaceTitle(ctx, id)
		if err != nil {
			return err
		}
		m.srcs = append(m.srcs, &source{id: id, title: title})
	}
	title, err := m.api.namespaceTitle(ctx, m.opts.Target)
	if err != nil {
		return err
	}
	m.rep.Target.Title = title

	for _, s := range m.srcs {
		if err := m.readSource(ctx, s); err != nil {
			return err
		}
	}
	targetKeys, err := m.listTarget(ctx)
	if err != nil {
		return err
	}
	m.rep.Target.KeysBefore = len(targetKeys)
	// Only target keys some source holds need their content: the rest are target-only.
	var shared []string
	for _, k := range targetKeys {
		if m.inAnySource(k.Name) {
			shared = append(shared, k.Name)
		}
	}
	targetEntries, err := m.readAll(ctx, "read", m.opts.Target, shared)
	if err != nil {
		return err
	}
	for k, e := range targetEntries {
		m.targetHash[k] = e.Hash()
	}

	keys := m.sourceKeys()
	items := m.plan(keys)
	for _, k := range keys {
		if st := m.status[k]; st.owner >= 0 {
			m.baseline[k] = st.hash
		}
	}
	if m.opts.DryRun {
		m.rep.Verification.Skipped = "dry run"
		m.rep.Verification.TargetOnly = m.targetOnly(targetKeys)
		return nil
	}
	if err := m.write(ctx, items); err != nil {
		return err
	}
	if err := m.delta(ctx); err != nil {
		return err
	}
	if err := m.verify(ctx); err != nil {
		return err
	}
	return m.rebuildNameFilter(ctx)
}

// readSource lists a source and reads every key's content.
func (m *migration) readSource(ctx context.Context, s *source) error {
	keys, err := m.listing(ctx, s.id)
	if err != nil {
		return err
	}
	s.listed = make(map[string]listedKey, len(keys))
	names := make([]string, len(keys))
	for i, k := range keys {
		s.listed[k.Name] = k
		names[i] = k.Name
	}
	s.entries, err = m.readAll(ctx, "read", s.id, names)
	return err
}

func (m *migration) listTarget(ctx context.Context) ([]listedKey, error) {
	return m.listing(ctx, m.opts.Target)
}

// listing lists a namespace without the name filter's keys (route.IsFilterKey): the filter is derived
// from the other keys, so it is never copied, compared or counted; the target's is rebuilt
// from what the target holds once the copy is verified (rebuildNameFilter).
func (m *migration) listing(ctx context.Context, namespaceID string) ([]listedKey, error) {
	p := m.meter("list", namespaceID, 0)
	keys, err := m.api.list(ctx, namespaceID, p.update)
	if err == nil {
		p.finish(len(keys))
	}
	keys = slices.DeleteFunc(keys, func(k listedKey) bool { return route.IsFilterKey(k.Name) })
	return keys, err
}

// rebuildNameFilter writes the target's name filter for every key it now holds (listed after
// the copy, or verified by reading it back: a listing may lag the writes it follows), then
// reads it back and checks that it admits them all. A copied filter would be wrong twice: a
// source's filter knows nothing of the target's other keys, and one written by another tool's
// keys may be stale already. Without this the edge would refuse every migrated app the
// target's old filter (or no key at all) does not name.
func (m *migration) rebuildNameFilter(ctx context.Context) error {
	names := slices.Sorted(maps.Keys(m.finalKeys))
	value := route.BuildFilter(names)
	client, account, target := m.opts.Client, m.opts.AccountID, m.opts.Target
	// The same names always give the same bytes: a second run finds its filter in place and
	// writes nothing.
	current, found, err := client.KVGetValue(ctx, account, target, route.FilterKey, maxFilterBytes)
	if err != nil {
		return fmt.Errorf("reading the target's name filter (%s): %w", route.FilterKey, err)
	}
	m.rep.NameFilter = &NameFilterReport{Names: len(names), Bytes: len(value)}
	if found && bytes.Equal(current, value) {
		return nil
	}
	// One value on its own, not in a bulk write: it is binary, and bulk writes are the keys'.
	if err := client.KVPut(ctx, account, target, route.FilterKey, value, ""); err != nil {
		return fmt.Errorf("writing the target's name filter (%s): %w; every copied key is verified, but the edge refuses hosts "+
			"the target's old filter does not name until it is rebuilt: run kv migrate again", route.FilterKey, err)
	}
	m.rep.NameFilter.Written = true
	got, _, err := client.KVGetValue(ctx, account, target, route.FilterKey, maxFilterBytes)
	if err != nil {
		return fmt.Errorf("reading back the target's name filter: %w", err)
	}
	f, err := route.DecodeFilter(got)
	if err != nil {
		return fmt.Errorf("reading back the target's name filter: %w", err)
	}
	for _, name := range names {
		if !f.Has(name) {
			return fmt.Errorf("the target's name filter, read back, refuses %q: another writer replaced it meanwhile; run kv migrate again", name)
		}
	}
	return nil
}

// maxFilterBytes bounds the filter read: 1,000,000 names take 1.25 MB; KV's value limit is 25 MiB.
const maxFilterBytes = 25 << 20

func (m *migration) readAll(ctx context.Context, step, namespaceID string, keys []string) (map[string]Entry, error) {
	p := m.meter(step, namespaceID, len(keys))
	got, err := m.api.getAll(ctx, namespaceID, keys, p.update)
	if err == nil {
		p.finish(len(keys))
	}
	return got, err
}

func (m *migration) inAnySource(key string) bool {
	for _, s := range m.srcs {
		if _, ok := s.entries[key]; ok {
			return true
		}
	}
	return false
}

// sourceKeys is the sorted union of the keys the sources hold.
func (m *migration) sourceKeys() []string {
	set := map[string]struct{}{}
	for _, s := range m.srcs {
		for k := range s.entries {
			set[k] = struct{}{}
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (m *migration) targetOnly(listing []listedKey) []string {
	var out []string
	for _, k := range listing {
		if !m.inAnySource(k.Name) {
			out = append(out, k.Name)
		}
	}
	return out
}

// plan decides every key of keys and returns the writes to make.
func (m *migration) plan(keys []string) []writeItem {
	var items []writeItem
	now := m.opts.Now()
	for _, key := range keys {
		st := m.decide(key, now)
		if prev := m.status[key]; prev != nil && prev.replaced && st.state == stateCopy {
			// The delta pass decides a key again, against a target this run already wrote:
			// what the run replaced was replaced, and the report still says so.
			st.replaced = true
		}
		m.status[key] = st
		if st.state == stateCopy {
			items = append(items, writeItem{Key: key, Entry: st.entry})
		}
	}
	return items
}

// decide chooses the content of key across the sources and compares it with the target.
func (m *migration) decide(key string, now time.Time) *keyStatus {
	delete(m.conflicts, key)
	type side struct {
		idx   int
		entry Entry
		hash  Hash
	}
	var sides []side
	distinct := map[Hash]bool{}
	for i, s := range m.srcs {
		if e, ok := s.entries[key]; ok {
			h := e.Hash()
			sides = append(sides, side{i, e, h})
			distinct[h] = true
		}
	}
	if len(sides) == 0 {
		return &keyStatus{state: stateGone, owner: -1}
	}
	chosen := sides[0]
	if len(distinct) > 1 {
		c := &Conflict{Key: key}
		found := false
		for _, sd := range sides {
			c.Sides = append(c.Sides, ConflictSide{Source: m.srcs[sd.idx].id, Hash: sd.hash.String(), Rev: metadataRev(sd.entry.Metadata)})
			if m.srcs[sd.idx].id == m.opts.Prefer {
				chosen, found = sd, true
			}
		}
		if found {
			c.Chosen = m.opts.Prefer
		}
		m.conflicts[key] = c
		if !found {
			return &keyStatus{state: stateConflict, owner: -1}
		}
	}
	st := &keyStatus{owner: chosen.idx, entry: chosen.entry, hash: chosen.hash}
	th, inTarget := m.targetHash[key]
	switch {
	case inTarget && th == chosen.hash:
		st.state = stateIdentical
	case inTarget && !m.opts.Overwrite && th != m.baseline[key]:
		st.state = stateTargetDiffers
	case chosen.entry.Expiration != 0 && time.Unix(chosen.entry.Expiration, 0).Before(now.Add(minExpirySeconds*time.Second+expirySlack)):
		st.state = stateExpiring
	default:
		st.state = stateCopy
		st.replaced = inTarget && th != m.baseline[key]
	}
	return st
}

// batches splits items into bulk writes within the pair and byte limits, in key order.
func batches(items []writeItem, maxPairs, maxBytes int) [][]writeItem {
	var out [][]writeItem
	var cur []writeItem
	size := 2 // the array's brackets
	for _, it := range items {
		n := it.encodedSize()
		if len(cur) > 0 && (len(cur) == maxPairs || size+n > maxBytes) {
			out = append(out, cur)
			cur, size = nil, 2
		}
		cur = append(cur, it)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// bulkRetries is how many more times keys a bulk write reports unsuccessful are sent again.
const bulkRetries = 2

// write sends items in bulk writes. A key is copied when a bulk result confirms it; keys the
// API reports unsuccessful are retried, then failed. A failed call fails its keys and the run
// goes on with the next batch, unless the context is done: then the rest is not attempted.
func (m *migration) write(ctx context.Context, items []writeItem) error {
	p := m.meter("write", m.opts.Target, len(items))
	done := 0
	pending := items
	for attempt := 0; len(pending) > 0 && attempt <= bulkRetries; attempt++ {
		var retry []writeItem
		for _, batch := range batches(pending, m.opts.BulkWritePairs, m.opts.BulkWriteBytes) {
			if err := ctx.Err(); err != nil {
				m.failAll(pending, "not written: the run was interrupted")
				return err
			}
			unsuccessful, err := m.api.bulkWrite(ctx, m.opts.Target, batch)
			m.rep.Writes.BulkCalls++
			for _, it := range batch {
				m.rep.Writes.Bytes += int64(it.encodedSize())
			}
			if err != nil {
				for _, it := range batch {
					m.failKey(it.Key, err.Error())
				}
				if ctx.Err() != nil {
					m.failAll(pending, "not written: the run was interrupted")
					return ctx.Err()
				}
				continue
			}
			bad := map[string]bool{}
			for _, k := range unsuccessful {
				bad[k] = true
			}
			for _, it := range batch {
				if bad[it.Key] {
					retry = append(retry, it)
					continue
				}
				m.copied(it)
				done++
			}
			p.update(done)
		}
		pending = retry
	}
	for _, it := range pending {
		m.failKey(it.Key, fmt.Sprintf("the bulk write reported the key unsuccessful %d times", bulkRetries+1))
	}
	p.finish(done)
	return nil
}

func (m *migration) copied(it writeItem) {
	st := m.status[it.Key]
	st.state = stateCopied
	st.err = ""
	delete(m.failed, it.Key)
	m.targetHash[it.Key] = it.Entry.Hash()
	m.rep.Writes.Keys++
}

func (m *migration) failKey(key, msg string) {
	if st := m.status[key]; st != nil && st.state != stateCopied {
		st.state, st.err = stateFailed, msg
		m.failed[key] = msg
	}
}

func (m *migration) failAll(items []writeItem, msg string) {
	for _, it := range items {
		m.failKey(it.Key, msg)
	}
}

// delta lists the sources again after the copy and copies what changed while it ran. A key
// whose listed metadata carries a rev (route data does) and whose listed metadata and
// expiration are unchanged is taken as unchanged without reading it; every other key is read
// and compared by content.
func (m *migration) delta(ctx context.Context) error {
	d := &DeltaReport{}
	changed := map[string]bool{}
	for _, s := range m.srcs {
		keys, err := m.listing(ctx, s.id)
		if err != nil {
			return err
		}
		d.Relisted += len(keys)
		now := make(map[string]bool, len(keys))
		var reread []string
		for _, k := range keys {
			now[k.Name] = true
			before, ok := s.listed[k.Name]
			_, read := s.entries[k.Name]
			switch {
			case !ok:
				d.Added = append(d.Added, k.Name)
				reread = append(reread, k.Name)
			case !read, // listed, then gone before the read: back now
				string(before.Metadata) != string(k.Metadata) || before.Expiration != k.Expiration,
				metadataRev(k.Metadata) == "":
				reread = append(reread, k.Name)
			}
		}
		for name := range s.listed {
			if !now[name] {
				d.Deleted = append(d.Deleted, name)
				delete(s.entries, name)
				changed[name] = true
			}
		}
		d.Reread += len(reread)
		got, err := m.readAll(ctx, "delta", s.id, reread)
		if err != nil {
			return err
		}
		for _, name := range reread {
			e, ok := got[name]
			old, had := s.entries[name]
			switch {
			case !ok && had: // deleted between the listing and the read
				d.Deleted = append(d.Deleted, name)
				delete(s.entries, name)
				changed[name] = true
			case ok && (!had || old.Hash() != e.Hash()):
				if had {
					d.Changed = append(d.Changed, name)
				}
				s.entries[name] = e
				changed[name] = true
			}
		}
	}
	keys := make([]string, 0, len(changed))
	for k := range changed {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	items := m.plan(keys)
	before := m.rep.Writes.Keys
	if err := m.write(ctx, items); err != nil {
		return err
	}
	d.Copied = m.rep.Writes.Keys - before
	slices.Sort(d.Changed)
	d.Added = slices.Compact(sortedCopy(d.Added))
	d.Deleted = slices.Compact(sortedCopy(d.Deleted))
	m.rep.Delta = d
	return nil
}

// verify reads the target back and compares every key the sources hold by content hash.
func (m *migration) verify(ctx context.Context) error {
	v := &m.rep.Verification
	expected := map[string]Hash{}
	var names []string
	for key, st := range m.status {
		switch st.state {
		case stateCopied, stateIdentical, stateFailed:
			expected[key] = st.hash
			names = append(names, key)
		}
	}
	slices.Sort(names)
	listing, err := m.listTarget(ctx)
	if err != nil {
		return err
	}
	got, err := m.readAll(ctx, "verify", m.opts.Target, names)
	if err != nil {
		return err
	}
	m.rep.Target.KeysAfter = len(listing)
	v.Expected = len(names)
	for _, key := range names {
		e, ok := got[key]
		switch {
		case !ok:
			v.Missing = append(v.Missing, key)
		case e.Hash() != expected[key]:
			v.Mismatched = append(v.Mismatched, key)
		default:
			v.Verified++
		}
	}
	v.TargetOnly = m.targetOnly(listing)
	m.finalKeys = map[string]struct{}{}
	for _, k := range listing {
		m.finalKeys[k.Name] = struct{}{}
	}
	for _, key := range names {
		if _, ok := got[key]; ok {
			m.finalKeys[key] = struct{}{}
		}
	}
	return nil
}

// finish fills the report's counts and lists from the key states and decides OK.
func (m *migration) finish(runErr error) {
	rep := m.rep
	if runErr != nil {
		rep.Error = runErr.Error()
		if rep.Verification.Skipped == "" {
			rep.Verification.Skipped = "interrupted"
		}
	}
	rep.Sources = make([]SourceReport, len(m.srcs))
	for i, s := range m.srcs {
		rep.Sources[i] = SourceReport{ID: s.id, Title: s.title, Listed: len(s.listed)}
	}
	keys := make([]string, 0, len(m.status))
	for k := range m.status {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	sourceKeys := 0
	for _, key := range keys {
		st := m.status[key]
		if st.state != stateGone {
			sourceKeys++
		}
		if st.owner >= 0 {
			sr := &rep.Sources[st.owner]
			switch st.state {
			case stateCopy, stateCopied:
				sr.Copied++
			case stateIdentical:
				sr.Identical++
			case stateTargetDiffers:
				sr.TargetDiffers++
			case stateExpiring:
				sr.Expiring++
			case stateFailed:
				sr.Failed++
			}
			for i, s := range m.srcs {
				if _, ok := s.entries[key]; ok && i != st.owner && m.conflicts[key] == nil {
					rep.Sources[i].DuplicatesIdentical++
				}
			}
		}
		switch st.state {
		case stateTargetDiffers:
			rep.TargetDiffers = append(rep.TargetDiffers, key)
		case stateExpiring:
			rep.Expiring = append(rep.Expiring, key)
		case stateFailed:
			src := ""
			if st.owner >= 0 {
				src = m.srcs[st.owner].id
			}
			rep.Failed = append(rep.Failed, FailedKey{Key: key, Source: src, Error: st.err})
		}
		if st.replaced && (st.state == stateCopied || st.state == stateCopy) {
			rep.Replaced = append(rep.Replaced, key)
		}
		if c := m.conflicts[key]; c != nil {
			rep.Conflicts = append(rep.Conflicts, *c)
			for _, sd := range c.Sides {
				for i, s := range m.srcs {
					if s.id == sd.Source {
						rep.Sources[i].Conflicts++
					}
				}
			}
		}
	}
	rep.Verification.SourceKeys = sourceKeys
	unresolved := 0
	for _, c := range rep.Conflicts {
		if c.Chosen == "" {
			unresolved++
		}
	}
	v := rep.Verification
	rep.OK = rep.Error == "" && unresolved == 0 && len(rep.TargetDiffers) == 0
	if !rep.DryRun {
		rep.OK = rep.OK && v.Skipped == "" && len(v.Missing) == 0 && len(v.Mismatched) == 0
	}
	normalize(rep)
}

// normalize makes every list non-nil, so the JSON form has [] rather than null.
func normalize(rep *Report) {
	for _, l := range []*[]string{&rep.TargetDiffers, &rep.Replaced, &rep.Expiring, &rep.Verification.Missing,
		&rep.Verification.Mismatched, &rep.Verification.TargetOnly} {
		if *l == nil {
			*l = []string{}
		}
	}
	if rep.Conflicts == nil {
		rep.Conflicts = []Conflict{}
	}
	if rep.Failed == nil {
		rep.Failed = []FailedKey{}
	}
	if rep.Sources == nil {
		rep.Sources = []SourceReport{}
	}
	if d := rep.Delta; d != nil {
		for _, l := range []*[]string{&d.Changed, &d.Added, &d.Deleted} {
			if *l == nil {
				*l = []string{}
			}
		}
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
