package kvmigrate

// Report is what a migration did and found. Every list of keys is sorted. It holds key names,
// counts and short content hashes: never a value and never a credential.
type Report struct {
	DryRun bool `json:"dry_run"`
	// OK is true when the target holds every source key's content (or, in a dry run, when the
	// copy would go through: no conflict and no differing target key is in its way).
	OK bool `json:"ok"`
	// Error is what stopped the run early (an interruption, a failed read); "" when it ran to
	// the end.
	Error string `json:"error,omitempty"`

	Sources []SourceReport `json:"sources"`
	Target  TargetReport   `json:"target"`

	// Conflicts are keys held by two or more sources with different content.
	Conflicts []Conflict `json:"conflicts"`
	// TargetDiffers are keys the target already holds with other content than the sources';
	// they are left alone unless Options.Overwrite (then they are listed in Replaced).
	TargetDiffers []string `json:"target_differs"`
	// Replaced are keys whose differing target content was overwritten (Options.Overwrite).
	Replaced []string `json:"replaced"`
	// Expiring are keys that expire too soon to be written (KV refuses an expiration less than
	// 60 s ahead); they are about to disappear from the source too.
	Expiring []string `json:"expiring"`
	// Failed are keys whose write was not confirmed.
	Failed []FailedKey `json:"failed"`

	Writes WriteStats `json:"writes"`
	// Delta is the final pass over the sources after the copy; nil in a dry run or when the
	// copy did not finish.
	Delta        *DeltaReport `json:"delta,omitempty"`
	Verification Verification `json:"verification"`
	// NameFilter is the target's rebuilt name filter (route.FilterKey); nil in a dry run or when
	// the copy did not verify.
	NameFilter *NameFilterReport `json:"name_filter,omitempty"`
}

// NameFilterReport describes the target's name filter as written and read back.
type NameFilterReport struct {
	// Names is how many keys it admits: every key the target holds.
	Names int `json:"names"`
	Bytes int `json:"bytes"`
	// Written is false when the target already held this very filter.
	Written bool `json:"written"`
}

// SourceReport counts one source namespace's keys; each key is counted once, at the source the
// copy took it from, except Conflicts and DuplicatesIdentical, which count every source
// involved.
type SourceReport struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Listed is how many keys the first listing found.
	Listed int `json:"listed"`
	// Copied keys were written to the target by this run (in a dry run: would be).
	Copied int `json:"copied"`
	// Identical keys were already identical in the target and were not written.
	Identical int `json:"identical"`
	// DuplicatesIdentical keys are also in an earlier source with the same content; the copy
	// takes them from that source.
	DuplicatesIdentical int `json:"duplicates_identical"`
	// Conflicts keys are also in another source with different content.
	Conflicts int `json:"conflicts"`
	// TargetDiffers keys differ in the target and were left alone.
	TargetDiffers int `json:"target_differs"`
	// Expiring keys expire too soon to be written.
	Expiring int `json:"expiring"`
	// Failed keys could not be written.
	Failed int `json:"failed"`
}

// TargetReport describes the target namespace.
type TargetReport struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// KeysBefore is how many keys the target held when the run started.
	KeysBefore int `json:"keys_before"`
	// KeysAfter is how many keys its listing held at the verification (-1 when not verified).
	KeysAfter int `json:"keys_after"`
}

// Conflict is one key that two or more sources hold with different content.
type Conflict struct {
	Key   string         `json:"key"`
	Sides []ConflictSide `json:"sides"`
	// Chosen is the source whose content was copied (Options.Prefer); "" when the key was not
	// copied.
	Chosen string `json:"chosen,omitempty"`
}

// ConflictSide is one source's version of a conflicting key.
type ConflictSide struct {
	Source string `json:"source"`
	// Hash is the first 12 hex digits of the content hash (value, metadata, expiration).
	Hash string `json:"hash"`
	// Rev is the metadata's rev, when it has one.
	Rev string `json:"rev,omitempty"`
}

// FailedKey is one key whose write was not confirmed.
type FailedKey struct {
	Key    string `json:"key"`
	Source string `json:"source"`
	Error  string `json:"error"`
}

// WriteStats counts the writes made (all bulk: the migration never writes one key per call).
type WriteStats struct {
	BulkCalls int `json:"bulk_calls"`
	Keys      int `json:"keys"`
	// Bytes is the sum of the bulk writes' encoded sizes, as estimated for the 100 MB limit.
	Bytes int64 `json:"bytes"`
}

// DeltaReport is the final pass: the sources listed again after the copy, and what changed in
// them while it ran (writes that landed during the migration).
type DeltaReport struct {
	// Relisted is how many keys the sources' second listings held.
	Relisted int `json:"relisted"`
	// Reread is how many keys had to be read again: new keys, keys whose listed metadata or
	// expiration changed, and keys without a metadata rev (compared by content).
	Reread int `json:"reread"`
	// Changed keys have other content than the copy read.
	Changed []string `json:"changed"`
	// Added keys appeared in a source during the copy.
	Added []string `json:"added"`
	// Deleted keys disappeared from a source during the copy. The target keeps whatever it
	// holds for them (the migration never deletes); they are listed here for a human to judge.
	Deleted []string `json:"deleted"`
	// Copied is how many keys the delta pass wrote.
	Copied int `json:"copied"`
}

// Verification compares the target with the sources after the copy, key by key, by content
// hash (value, metadata, expiration), read back from the target.
type Verification struct {
	// Skipped says why there was no verification ("dry run", "interrupted"); "" when it ran.
	Skipped string `json:"skipped,omitempty"`
	// SourceKeys is how many distinct keys the sources hold.
	SourceKeys int `json:"source_keys"`
	// Expected is how many of them the target should hold (conflicts, differing target keys
	// and expiring keys left out).
	Expected int `json:"expected"`
	// Verified keys are identical in the target.
	Verified int `json:"verified"`
	// Missing keys are absent from the target.
	Missing []string `json:"missing"`
	// Mismatched keys are in the target with other content.
	Mismatched []string `json:"mismatched"`
	// TargetOnly keys are in the target but in no source; they are reported, never deleted.
	TargetOnly []string `json:"target_only"`
}
