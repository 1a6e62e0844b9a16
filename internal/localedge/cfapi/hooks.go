package cfapi

import "time"

// Hooks tell the local edge's runtime what changed, so uploads, KV writes, routes, hostnames,
// tunnel configurations and purges take effect without a restart. Every field is optional
// (default nil: not called). Hooks run on the request's goroutine after the change is
// persisted and before the response is sent, except KVChanged, which runs after the emulated
// propagation delay on its own goroutine. A hook may call the Server's read methods; it must
// not block for long.
type Hooks struct {
	// ScriptChanged reports an upload (Script set, Deleted false) or a delete (Deleted true).
	ScriptChanged func(ScriptEvent)

	// KVChanged reports one key written or deleted, after Config.KVPropagationDelay. A bulk
	// operation reports each key.
	KVChanged func(KVEvent)

	// RoutesChanged reports the zone's complete Workers routes after any route change.
	RoutesChanged func([]Route)

	// CustomHostnamesChanged reports the zone's complete custom hostnames (with their current
	// status) after a create, edit or delete, after a DNS change that can affect validation,
	// and when Config.AutoValidate activates a hostname. A status also depends on the zone's
	// fallback origin, which becomes active as time passes (Config.FallbackActivation) with no
	// call to report it; read Server.CustomHostnames when the status matters (the edge does, at
	// every request).
	CustomHostnamesChanged func([]CustomHostnameStatus)

	// DNSChanged reports the zone's complete DNS records after any change.
	DNSChanged func([]DNSRecord)

	// TunnelChanged reports a tunnel's configuration change, creation or deletion.
	TunnelChanged func(TunnelEvent)

	// R2Changed reports one R2 object written or deleted (R2 is strongly consistent: no
	// delay).
	R2Changed func(R2Event)

	// Purged reports the URLs of one purge_cache request, so the runtime can drop them from its
	// Cache API.
	Purged func(Purge)
}

// ScriptEvent is a Worker script upload or delete.
type ScriptEvent struct {
	Name    string
	Deleted bool
	// Script is a copy of the uploaded script (secret bindings included: the runtime needs
	// them). Nil when Deleted.
	Script *Script
}

// KVEvent is one KV key written or deleted.
type KVEvent struct {
	NamespaceID string
	Key         string
	Deleted     bool
	// Entry is a copy of the written entry; nil when Deleted.
	Entry *KVEntry
	// WrittenAt is when the API accepted the change (before the propagation delay).
	WrittenAt time.Time
}

// TunnelEvent is a tunnel created, reconfigured or deleted.
type TunnelEvent struct {
	TunnelID string
	Name     string
	Deleted  bool
	// Config is a copy of the tunnel's ingress configuration; nil until one is PUT.
	Config *TunnelConfig
}

// R2Event is one R2 object written or deleted.
type R2Event struct {
	Bucket  string
	Key     string
	Deleted bool
	// Object is a copy of the written object; nil when Deleted.
	Object *R2Object
}
