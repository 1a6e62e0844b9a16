package cfapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
)

// purgeMaxFiles is Cloudflare's per-request limit for purge by URL: 100 on every plan but
// Enterprise (500); the local edge holds callers to the smaller one.
const purgeMaxFiles = 100

func (s *Server) registerPurgeRoutes() {
	s.mux.HandleFunc("POST "+APIPrefix+"/zones/{zone_id}/purge_cache", s.handleJSON(s.purgeCache))
}

// purgeCache accepts purge by URL ("files", each a URL string or {"url": …, "headers": …});
// other purge kinds (tags, hosts, prefixes, everything) are not emulated and say so.
func (s *Server) purgeCache(r *http.Request) (any, any, func(), error) {
	var body struct {
		Files           []any    `json:"files"`
		Tags            []string `json:"tags"`
		Hosts           []string `json:"hosts"`
		Prefixes        []string `json:"prefixes"`
		PurgeEverything bool     `json:"purge_everything"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if len(body.Tags) > 0 || len(body.Hosts) > 0 || len(body.Prefixes) > 0 || body.PurgeEverything {
		return nil, nil, nil, &apiError{Status: http.StatusNotImplemented, Code: codeNoRoute,
			Message: "local edge implements purge by URL (files) only, not tags, hosts, prefixes or purge_everything"}
	}
	if len(body.Files) == 0 || len(body.Files) > purgeMaxFiles {
		return nil, nil, nil, errBadRequest("files must list 1 to " + strconv.Itoa(purgeMaxFiles) + " URLs")
	}
	files := make([]string, 0, len(body.Files))
	for _, f := range body.Files {
		var raw string
		switch v := f.(type) {
		case string:
			raw = v
		case map[string]any:
			raw, _ = v["url"].(string)
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, nil, nil, errBadRequest("files must be absolute http(s) URLs: " + raw)
		}
		files = append(files, raw)
	}
	p := Purge{ID: newID(), Files: files, At: s.now().UTC()}
	s.purges.Purges = append(s.purges.Purges, p)
	if over := len(s.purges.Purges) - maxPurgeLog; over > 0 {
		s.purges.Purges = slices.Delete(s.purges.Purges, 0, over)
	}
	if err := s.save(filePurges); err != nil {
		return nil, nil, nil, err
	}
	var notify func()
	if hook := s.hooks.Purged; hook != nil {
		ev := Purge{ID: p.ID, Files: slices.Clone(p.Files), At: p.At}
		notify = func() { hook(ev) }
	}
	return map[string]string{"id": p.ID}, nil, notify, nil
}
