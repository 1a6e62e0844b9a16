package route

// The propagation probe lets a deployment tool ask the edge whether it already serves a given
// revision for a host, without the edge revealing what it serves. A GET of ProbePath on the
// host, carrying ExpectRevHeader, is answered by the Worker itself (never forwarded, never
// served from the content cache) after resolving the host the way a real request would (memo,
// route cache, KV). The answer is 204 with RevMatchHeader set to one of the RevMatch values.
// Only a yes/no for a guessed revision is given out, so the probe cannot be used to read a
// record; a full revision is 96 bits, which no one guesses online.
const (
	ProbePath       = "/.well-known/kamui/route"
	ExpectRevHeader = "Kamui-Expect-Rev"
	RevMatchHeader  = "Kamui-Rev-Match"
)

// The probe's answers in RevMatchHeader.
const (
	// RevMatchRecord: the host's route record has the expected revision.
	RevMatchRecord = "record"
	// RevMatchMapping: the host's custom domain mapping has the expected revision.
	RevMatchMapping = "mapping"
	// RevMatchNone: the edge serves something else for the host (or nothing).
	RevMatchNone = "none"
)
