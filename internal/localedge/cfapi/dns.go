package cfapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

func (s *Server) registerDNSRoutes() {
	const records = APIPrefix + "/zones/{zone_id}/dns_records"
	s.mux.HandleFunc("GET "+records, s.handleJSON(s.listDNSRecords))
	s.mux.HandleFunc("POST "+records, s.handleJSON(s.createDNSRecord))
	s.mux.HandleFunc("GET "+records+"/{dns_record_id}", s.handleJSON(s.getDNSRecord))
	s.mux.HandleFunc("PUT "+records+"/{dns_record_id}", s.handleJSON(s.replaceDNSRecord))
	s.mux.HandleFunc("PATCH "+records+"/{dns_record_id}", s.handleJSON(s.patchDNSRecord))
	s.mux.HandleFunc("DELETE "+records+"/{dns_record_id}", s.handleJSON(s.deleteDNSRecord))
}

// dnsFields are the record fields the emulator interprets; any other field of the request
// body is kept verbatim in DNSRecord.Extra.
var dnsFields = []string{"id", "type", "name", "content", "proxied", "ttl", "comment", "tags",
	"proxiable", "created_on", "modified_on", "meta", "settings", "zone_id", "zone_name"}

// applyDNSBody merges a JSON body into rec; PUT starts from an empty record, PATCH from the
// stored one.
func (s *Server) applyDNSBody(r *http.Request, rec *DNSRecord) error {
	var raw map[string]json.RawMessage
	if err := decodeJSON(r, &raw); err != nil {
		return err
	}
	var known struct {
		Type    *string   `json:"type"`
		Name    *string   `json:"name"`
		Content *string   `json:"content"`
		Proxied *bool     `json:"proxied"`
		TTL     *float64  `json:"ttl"`
		Comment *string   `json:"comment"`
		Tags    *[]string `json:"tags"`
	}
	data, _ := json.Marshal(raw)
	if err := json.Unmarshal(data, &known); err != nil {
		return errBadRequest("malformed DNS record: " + err.Error())
	}
	if known.Type != nil {
		rec.Type = strings.ToUpper(*known.Type)
	}
	if known.Name != nil {
		rec.Name = s.fqdn(*known.Name)
	}
	if known.Content != nil {
		rec.Content = *known.Content
	}
	if known.Proxied != nil {
		rec.Proxied = *known.Proxied
	}
	if known.TTL != nil {
		rec.TTL = *known.TTL
	}
	if known.Comment != nil {
		rec.Comment = *known.Comment
	}
	if known.Tags != nil {
		rec.Tags = *known.Tags
	}
	for k, v := range raw {
		if slices.Contains(dnsFields, k) {
			continue
		}
		var val any
		_ = json.Unmarshal(v, &val)
		if rec.Extra == nil {
			rec.Extra = map[string]any{}
		}
		rec.Extra[k] = val
	}
	switch {
	case rec.Type == "":
		return errBadRequest("DNS record type is required")
	case rec.Name == "":
		return errBadRequest("DNS record name is required")
	case len(rec.Name) > 255: // dns-records_name: maxLength 255
		return errBadRequest("DNS record name is longer than 255 bytes")
	case rec.Content == "" && rec.Extra["data"] == nil:
		return errBadRequest("DNS record content is required")
	case rec.TTL != 1 && (rec.TTL < 30 || rec.TTL > 86400):
		return errBadRequest("ttl must be 1 (automatic) or between 30 and 86400")
	}
	return nil
}

// fqdn completes a record name as Cloudflare does: "@" is the apex, and a name that is not
// already inside the zone gets the zone appended.
func (s *Server) fqdn(name string) string {
	name = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	zone := s.identity.ZoneName
	switch {
	case name == "@" || name == "":
		return zone
	case name == zone || strings.HasSuffix(name, "."+zone):
		return name
	}
	return name + "." + zone
}

// dnsRecordView is the API shape of a record.
func (s *Server) dnsRecordView(rec *DNSRecord) map[string]any {
	v := map[string]any{}
	for k, val := range rec.Extra {
		v[k] = val
	}
	proxiable := rec.Type == "A" || rec.Type == "AAAA" || rec.Type == "CNAME"
	// The OpenAPI description requires "data" on every record; content-only types get {}.
	if _, ok := v["data"]; !ok {
		v["data"] = map[string]any{}
	}
	for k, val := range map[string]any{
		"id": rec.ID, "type": rec.Type, "name": rec.Name, "content": rec.Content,
		"proxied": rec.Proxied, "proxiable": proxiable, "ttl": rec.TTL, "comment": rec.Comment,
		"tags": nonNil(rec.Tags), "settings": map[string]any{}, "meta": map[string]any{},
		"created_on": rec.CreatedOn, "modified_on": rec.ModifiedOn,
	} {
		v[k] = val
	}
	return v
}

func (s *Server) dnsRecord(r *http.Request) (*DNSRecord, error) {
	id := r.PathValue("dns_record_id")
	rec, ok := s.zone.DNSRecords[id]
	if !ok {
		return nil, &apiError{Status: http.StatusNotFound, Code: 81044, Message: "Record does not exist: " + id}
	}
	return rec, nil
}

func (s *Server) sortedDNSRecords() []DNSRecord {
	out := make([]DNSRecord, 0, len(s.zone.DNSRecords))
	for _, rec := range s.zone.DNSRecords {
		c := *rec
		c.Tags = slices.Clone(rec.Tags)
		if rec.Extra != nil {
			c.Extra = deepCopyJSON(rec.Extra)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b DNSRecord) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// notifyDNS reports the records and, since a TXT record can validate a custom hostname, the
// custom hostnames too.
func (s *Server) notifyDNS() func() {
	dnsHook := s.hooks.DNSChanged
	records := s.sortedDNSRecords()
	hostnamesNotify := s.notifyHostnames()
	return func() {
		if dnsHook != nil {
			dnsHook(records)
		}
		if hostnamesNotify != nil {
			hostnamesNotify()
		}
	}
}

func (s *Server) listDNSRecords(r *http.Request) (any, any, func(), error) {
	q := r.URL.Query()
	name := q.Get("name")
	if name == "" {
		name = q.Get("name.exact")
	}
	if name != "" {
		name = s.fqdn(name)
	}
	typ := strings.ToUpper(q.Get("type"))
	content := q.Get("content")
	if content == "" {
		content = q.Get("content.exact")
	}
	nameContains := strings.ToLower(q.Get("name.contains"))
	nameStarts := strings.ToLower(q.Get("name.startswith"))
	nameEnds := strings.ToLower(q.Get("name.endswith"))
	var views []map[string]any
	for _, rec := range s.sortedDNSRecords() {
		switch {
		case name != "" && rec.Name != name,
			typ != "" && rec.Type != typ,
			content != "" && rec.Content != content,
			nameContains != "" && !strings.Contains(rec.Name, nameContains),
			nameStarts != "" && !strings.HasPrefix(rec.Name, nameStarts),
			nameEnds != "" && !strings.HasSuffix(rec.Name, nameEnds):
			continue
		}
		views = append(views, s.dnsRecordView(&rec))
	}
	page, info, err := paginate(r, nonNil(views), 100, 5000)
	return page, info, nil, err
}

func (s *Server) createDNSRecord(r *http.Request) (any, any, func(), error) {
	now := s.now().UTC()
	rec := &DNSRecord{ID: newID(), TTL: 1, CreatedOn: now, ModifiedOn: now}
	if err := s.applyDNSBody(r, rec); err != nil {
		return nil, nil, nil, err
	}
	for _, other := range s.zone.DNSRecords {
		if other.Name == rec.Name && other.Type == rec.Type && other.Content == rec.Content {
			return nil, nil, nil, &apiError{Status: http.StatusBadRequest, Code: 81058, Message: "An identical record already exists."}
		}
		// A CNAME is the only record of its name, as in DNS itself: the API refuses one beside
		// any other record of the name, and any record beside a CNAME.
		if other.Name == rec.Name && (other.Type == "CNAME" || rec.Type == "CNAME") {
			return nil, nil, nil, &apiError{Status: http.StatusBadRequest, Code: 81053, Message: "An A, AAAA, or CNAME record with that host already exists."}
		}
	}
	s.zone.DNSRecords[rec.ID] = rec
	s.refreshValidation()
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return s.dnsRecordView(rec), nil, s.notifyDNS(), nil
}

func (s *Server) getDNSRecord(r *http.Request) (any, any, func(), error) {
	rec, err := s.dnsRecord(r)
	if err != nil {
		return nil, nil, nil, err
	}
	return s.dnsRecordView(rec), nil, nil, nil
}

func (s *Server) replaceDNSRecord(r *http.Request) (any, any, func(), error) {
	return s.updateDNSRecord(r, false)
}

func (s *Server) patchDNSRecord(r *http.Request) (any, any, func(), error) {
	return s.updateDNSRecord(r, true)
}

func (s *Server) updateDNSRecord(r *http.Request, merge bool) (any, any, func(), error) {
	rec, err := s.dnsRecord(r)
	if err != nil {
		return nil, nil, nil, err
	}
	next := DNSRecord{ID: rec.ID, TTL: 1, CreatedOn: rec.CreatedOn}
	if merge {
		next = *rec
		next.Extra = map[string]any{}
		for k, v := range rec.Extra {
			next.Extra[k] = v
		}
	}
	if err := s.applyDNSBody(r, &next); err != nil {
		return nil, nil, nil, err
	}
	next.ModifiedOn = s.now().UTC()
	*rec = next
	s.refreshValidation()
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return s.dnsRecordView(rec), nil, s.notifyDNS(), nil
}

func (s *Server) deleteDNSRecord(r *http.Request) (any, any, func(), error) {
	rec, err := s.dnsRecord(r)
	if err != nil {
		return nil, nil, nil, err
	}
	delete(s.zone.DNSRecords, rec.ID)
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return map[string]string{"id": rec.ID}, nil, s.notifyDNS(), nil
}

// hasTXT reports whether the zone publishes a TXT record with that name (as given, or
// completed with the zone) and value; surrounding quotes on the content are ignored.
func (s *Server) hasTXT(name, value string) bool {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	for _, rec := range s.zone.DNSRecords {
		if rec.Type != "TXT" {
			continue
		}
		if rec.Name != name && rec.Name != name+"."+s.identity.ZoneName {
			continue
		}
		if strings.Trim(rec.Content, `"`) == value {
			return true
		}
	}
	return false
}
