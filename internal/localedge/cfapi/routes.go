package cfapi

import (
	"net/http"
	"slices"
	"strings"
)

const codeDuplicateRoute = 10020

func (s *Server) registerRouteRoutes() {
	const routes = APIPrefix + "/zones/{zone_id}/workers/routes"
	s.mux.HandleFunc("GET "+routes, s.handleJSON(s.listRoutes))
	s.mux.HandleFunc("POST "+routes, s.handleJSON(s.createRoute))
	s.mux.HandleFunc("GET "+routes+"/{route_id}", s.handleJSON(s.getRoute))
	s.mux.HandleFunc("PUT "+routes+"/{route_id}", s.handleJSON(s.updateRoute))
	s.mux.HandleFunc("DELETE "+routes+"/{route_id}", s.handleJSON(s.deleteRoute))
}

type routeBody struct {
	Pattern string `json:"pattern"`
	Script  string `json:"script"`
}

func (s *Server) readRouteBody(r *http.Request, selfID string) (routeBody, error) {
	var body routeBody
	if err := decodeJSON(r, &body); err != nil {
		return body, err
	}
	if strings.TrimSpace(body.Pattern) == "" {
		return body, errBadRequest("pattern is required")
	}
	for _, rt := range s.zone.Routes {
		if rt.Pattern == body.Pattern && rt.ID != selfID {
			return body, errConflictCode(codeDuplicateRoute, "A route with the same pattern already exists: "+body.Pattern)
		}
	}
	return body, nil
}

func errConflictCode(code int, msg string) *apiError {
	return &apiError{Status: http.StatusConflict, Code: code, Message: msg}
}

func (s *Server) route(r *http.Request) (*Route, error) {
	id := r.PathValue("route_id")
	rt, ok := s.zone.Routes[id]
	if !ok {
		return nil, errNotFound("route not found: " + id)
	}
	return rt, nil
}

// sortedRoutes returns copies ordered by pattern, a stable order for the API and the hook.
func (s *Server) sortedRoutes() []Route {
	out := make([]Route, 0, len(s.zone.Routes))
	for _, rt := range s.zone.Routes {
		out = append(out, *rt)
	}
	slices.SortFunc(out, func(a, b Route) int { return strings.Compare(a.Pattern, b.Pattern) })
	return out
}

func (s *Server) notifyRoutes() func() {
	hook := s.hooks.RoutesChanged
	if hook == nil {
		return nil
	}
	routes := s.sortedRoutes()
	return func() { hook(routes) }
}

func (s *Server) listRoutes(r *http.Request) (any, any, func(), error) {
	return s.sortedRoutes(), nil, nil, nil
}

func (s *Server) createRoute(r *http.Request) (any, any, func(), error) {
	body, err := s.readRouteBody(r, "")
	if err != nil {
		return nil, nil, nil, err
	}
	rt := &Route{ID: newID(), Pattern: body.Pattern, Script: body.Script}
	s.zone.Routes[rt.ID] = rt
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return *rt, nil, s.notifyRoutes(), nil
}

func (s *Server) getRoute(r *http.Request) (any, any, func(), error) {
	rt, err := s.route(r)
	if err != nil {
		return nil, nil, nil, err
	}
	return *rt, nil, nil, nil
}

func (s *Server) updateRoute(r *http.Request) (any, any, func(), error) {
	rt, err := s.route(r)
	if err != nil {
		return nil, nil, nil, err
	}
	body, err := s.readRouteBody(r, rt.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	rt.Pattern, rt.Script = body.Pattern, body.Script
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return *rt, nil, s.notifyRoutes(), nil
}

func (s *Server) deleteRoute(r *http.Request) (any, any, func(), error) {
	rt, err := s.route(r)
	if err != nil {
		return nil, nil, nil, err
	}
	delete(s.zone.Routes, rt.ID)
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return map[string]string{"id": rt.ID}, nil, s.notifyRoutes(), nil
}
