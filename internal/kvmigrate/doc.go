// Package kvmigrate copies the route data from one or more Workers KV namespaces into a new one
// and verifies the copy: the `kv migrate` sub-command, the copy-and-verify step of a route-data
// migration (changing the shape of the route data is a migration, not an edit; the Worker then
// switches its binding in a Worker-only plan and never reads two namespaces for one key).
//
//	terraform-provider-kamuidash kv migrate --from NS [--from NS ...] --to NS \
//	    [--dry-run] [--prefer NS] [--overwrite] [--format text|json]
//
// # What a run does
//
//  1. Checks that every namespace exists, then lists each source (1,000 keys a page) and reads
//     every key with bulk gets (100 keys a call, with metadata and expiration). The bulk read
//     returns text only; a value that comes back with U+FFFD (bytes that are not UTF-8) is read
//     again on its own as raw bytes, so binary values are copied byte for byte.
//  2. Lists the target and reads the target keys the sources also hold.
//  3. Decides per key, by a content hash over value, canonical metadata and expiration:
//     identical in the target → not written (a second run writes nothing); held by two sources
//     with different content → a conflict, reported and not copied unless --prefer names the
//     source to take (identical duplicates are fine: the first source is taken); held by the
//     target with other content → reported and left alone unless --overwrite; expiring in less
//     than KV's 60 s minimum plus a margin → reported, not written; otherwise copied.
//  4. Writes with bulk writes (at most 10,000 pairs and 100 MB a call, values base64-encoded,
//     metadata as JSON, expirations absolute). Keys a bulk result reports unsuccessful are
//     retried twice, then reported failed. Never a per-key write of a key, never a delete.
//  5. The delta pass: lists the sources again and copies what changed during the copy. A key
//     whose listed metadata carries a `rev` (route data does: metadata {v, rev, owner}) and
//     whose listed metadata and expiration did not change is taken as unchanged without a read;
//     every other key is read and compared by content. Added keys are copied; deleted keys are
//     reported (the target keeps them).
//  6. Verifies: reads every expected key back from the target and compares content hashes;
//     counts; reports keys the target holds that no source has (never deleted).
//  7. Rebuilds the target's name filter (route.FilterKey, which steps 1 to 6 leave out: it is
//     derived from the other keys, and a source's may be stale or know nothing of the target's
//     keys) for every key the target now holds, as one value, reads it back and checks that it
//     admits them all; an identical filter already in place is not written. Without it the
//     edge would refuse the migrated apps the target's filter does not name.
//
// A run holds the sources' content in memory (route data is a few hundred bytes a key: 100,000
// keys take tens of megabytes) and makes about 25 API calls per 1,000 keys, 35 once the target
// holds them; the client's limiter keeps it within the account's budget.
//
// A write freeze (no apply against the environment while the migration and the Worker's switch
// run) is the safe way; the delta pass catches most stragglers, not a write that lands after it.
// KV is eventually consistent (up to about 60 s): start the freeze, wait a minute, then migrate.
//
// # Resuming
//
// Nothing is kept between runs but the namespaces themselves: an interrupted run (Ctrl-C, a
// failed call) is resumed by running the same command again, which skips every key already
// identical in the target. --dry-run shows what a run would write.
//
// # Credentials
//
// As the provider: CLOUDFLARE_API_TOKEN (only from the environment), KAMUIDASH_ACCOUNT_ID and
// KAMUIDASH_API_BASE_URL (a local edge's URL), the latter two overridable by flags. The client is
// internal/cloudflare's (rate limit, retries, logging without the token). Everything the
// command prints passes through a filter that replaces the token, should an error ever carry it.
package kvmigrate
