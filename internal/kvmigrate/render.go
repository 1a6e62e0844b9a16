package kvmigrate

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// listLimit is how many keys of one list the text report names; the JSON report names all.
const listLimit = 20

// writeText prints the report for a human: what was found and done per source, the target,
// the writes, the delta pass, the verification, the keys that need a look, and a verdict. The
// report is written in one piece, and an error says it did not arrive whole.
func writeText(w io.Writer, out Output) error {
	var b strings.Builder
	renderText(&b, out)
	_, err := io.WriteString(w, b.String())
	return err
}

func renderText(w *strings.Builder, out Output) {
	rep := out.Report
	mode := ""
	if rep.DryRun {
		mode = " (dry run: nothing is written)"
	}
	fmt.Fprintf(w, "kv migrate: %d source(s) → %s%s\n", len(rep.Sources), nsName(rep.Target.ID, rep.Target.Title), mode)
	copied := "copied"
	if rep.DryRun {
		copied = "to copy"
	}
	for _, s := range rep.Sources {
		fmt.Fprintf(w, "\nsource %s\n", nsName(s.ID, s.Title))
		fmt.Fprintf(w, "  listed %d, %s %d, already identical in the target %d, conflicts %d, failed %d\n",
			s.Listed, copied, s.Copied, s.Identical, s.Conflicts, s.Failed)
		if s.DuplicatesIdentical+s.TargetDiffers+s.Expiring > 0 {
			fmt.Fprintf(w, "  identical duplicates of an earlier source %d, target differs %d, expiring %d\n",
				s.DuplicatesIdentical, s.TargetDiffers, s.Expiring)
		}
	}
	t := rep.Target
	fmt.Fprintf(w, "\ntarget %s: %d keys before", nsName(t.ID, t.Title), t.KeysBefore)
	if t.KeysAfter >= 0 {
		fmt.Fprintf(w, ", %d after", t.KeysAfter)
	}
	fmt.Fprintln(w)
	if !rep.DryRun {
		if rep.Writes.BulkCalls == 0 {
			fmt.Fprintln(w, "writes: none (every key was already identical in the target or could not be copied)")
		} else {
			fmt.Fprintf(w, "writes: %d bulk call(s), %d keys, %s\n", rep.Writes.BulkCalls, rep.Writes.Keys, byteSize(rep.Writes.Bytes))
		}
	}
	if d := rep.Delta; d != nil {
		fmt.Fprintf(w, "delta pass: %d keys re-listed, %d re-read; during the copy %d changed, %d added, %d deleted in the sources; %d copied\n",
			d.Relisted, d.Reread, len(d.Changed), len(d.Added), len(d.Deleted), d.Copied)
	}
	v := rep.Verification
	switch {
	case v.Skipped != "":
		fmt.Fprintf(w, "verification: skipped (%s); the sources hold %d distinct keys\n", v.Skipped, v.SourceKeys)
	default:
		fmt.Fprintf(w, "verification: %d of %d expected keys identical in the target (content hash of value, metadata and expiration); %d missing, %d mismatched; the sources hold %d distinct keys\n",
			v.Verified, v.Expected, len(v.Missing), len(v.Mismatched), v.SourceKeys)
	}
	if f := rep.NameFilter; f != nil {
		if f.Written {
			fmt.Fprintf(w, "name filter: rebuilt in the target for its %d keys (%s), read back and checked\n", f.Names, byteSize(int64(f.Bytes)))
		} else {
			fmt.Fprintf(w, "name filter: the target's already admits its %d keys; not written\n", f.Names)
		}
	}
	if len(out.APICalls) > 0 {
		fmt.Fprintf(w, "API calls: %s\n", callSummary(out.APICalls))
	}

	conflicts := make([]string, 0, len(rep.Conflicts))
	for _, c := range rep.Conflicts {
		sides := make([]string, len(c.Sides))
		for i, s := range c.Sides {
			sides[i] = s.Source + "=" + s.Hash
			if s.Rev != "" {
				sides[i] += " (rev " + s.Rev + ")"
			}
		}
		line := c.Key + ": " + strings.Join(sides, ", ")
		if c.Chosen != "" {
			line += "; copied from " + c.Chosen + " (--prefer)"
		} else {
			line += "; not copied"
		}
		conflicts = append(conflicts, line)
	}
	keyList(w, "conflicts (the same key with different content in two sources; never merged: choose one with --prefer, or fix the sources)", conflicts)
	keyList(w, "target differs (the target holds other content; left alone: check them, then rerun with --overwrite if the sources are right)", rep.TargetDiffers)
	keyList(w, "replaced in the target (--overwrite)", rep.Replaced)
	keyList(w, "expiring (they expire within about 90 s; not written)", rep.Expiring)
	failed := make([]string, len(rep.Failed))
	for i, f := range rep.Failed {
		failed[i] = f.Key + " (from " + f.Source + "): " + f.Error
	}
	keyList(w, "failed (rerun: keys already identical are skipped)", failed)
	if d := rep.Delta; d != nil {
		keyList(w, "changed in a source during the copy (copied again)", d.Changed)
		keyList(w, "added to a source during the copy", d.Added)
		keyList(w, "deleted from a source during the copy (the target keeps them: the migration never deletes; remove them once you have checked why they went)", d.Deleted)
	}
	keyList(w, "missing from the target", v.Missing)
	keyList(w, "mismatched in the target", v.Mismatched)
	keyList(w, "in the target only (in no source; reported, never deleted)", v.TargetOnly)

	fmt.Fprintln(w)
	fmt.Fprintln(w, verdict(rep))
}

func verdict(rep *Report) string {
	toCopy := 0
	for _, s := range rep.Sources {
		toCopy += s.Copied
	}
	var why []string
	if rep.Error != "" {
		why = append(why, "stopped early: "+rep.Error)
	}
	unresolved := 0
	for _, c := range rep.Conflicts {
		if c.Chosen == "" {
			unresolved++
		}
	}
	if unresolved > 0 {
		why = append(why, fmt.Sprintf("%d conflicting key(s) not copied", unresolved))
	}
	if n := len(rep.TargetDiffers); n > 0 {
		why = append(why, fmt.Sprintf("%d target key(s) differ", n))
	}
	if n := len(rep.Verification.Missing); n > 0 {
		why = append(why, fmt.Sprintf("%d key(s) missing from the target", n))
	}
	if n := len(rep.Verification.Mismatched); n > 0 {
		why = append(why, fmt.Sprintf("%d key(s) mismatched in the target", n))
	}
	switch {
	case rep.DryRun && rep.OK:
		return fmt.Sprintf("kv migrate: dry run: would copy %d key(s); nothing was written", toCopy)
	case rep.DryRun:
		return fmt.Sprintf("kv migrate: dry run: would copy %d key(s), but the copy would not verify: %s", toCopy, strings.Join(why, "; "))
	case rep.OK && rep.Writes.Keys == 0:
		return fmt.Sprintf("kv migrate: OK: nothing to copy, all %d key(s) already identical in the target; nothing was written", rep.Verification.Verified)
	case rep.OK:
		return fmt.Sprintf("kv migrate: OK: %d key(s) verified in the target, %d written", rep.Verification.Verified, rep.Writes.Keys)
	case len(why) == 0:
		why = append(why, "see above")
	}
	return "kv migrate: NOT VERIFIED: " + strings.Join(why, "; ") + ". Rerun after fixing: keys already identical are not written again."
}

func keyList(w *strings.Builder, title string, keys []string) {
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s: %d\n", title, len(keys))
	for i, k := range keys {
		if i == listLimit {
			fmt.Fprintf(w, "  … and %d more (--format json lists them all)\n", len(keys)-listLimit)
			break
		}
		fmt.Fprintf(w, "  %s\n", k)
	}
}

func nsName(id, title string) string {
	if title == "" {
		return id
	}
	return id + " (" + title + ")"
}

func byteSize(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func callSummary(calls map[string]int) string {
	ops := make([]string, 0, len(calls))
	total := 0
	for op, n := range calls {
		ops = append(ops, fmt.Sprintf("%s %d", op, n))
		total += n
	}
	slices.Sort(ops)
	return fmt.Sprintf("%d (%s)", total, strings.Join(ops, ", "))
}
