package cfapi

import (
	"net/http"
	"strconv"
)

// pageParams reads page and per_page, applying the endpoint's default and maximum page size
// as Cloudflare does (a too-large per_page is clamped, not rejected).
func pageParams(r *http.Request, defaultPerPage, maxPerPage int) (page, perPage int, err error) {
	page, perPage = 1, defaultPerPage
	q := r.URL.Query()
	if v := q.Get("page"); v != "" {
		page, err = strconv.Atoi(v)
		if err != nil || page < 1 {
			return 0, 0, errBadRequest("page must be a positive integer")
		}
	}
	if v := q.Get("per_page"); v != "" {
		perPage, err = strconv.Atoi(v)
		if err != nil || perPage < 1 {
			return 0, 0, errBadRequest("per_page must be a positive integer")
		}
	}
	perPage = min(perPage, maxPerPage)
	return page, perPage, nil
}

// paginate returns one page of items (already filtered and sorted) and its result_info. A page
// past the end is empty, which is how cloudflare-go's auto-pager knows to stop.
func paginate[T any](r *http.Request, items []T, defaultPerPage, maxPerPage int) ([]T, pageInfo, error) {
	page, perPage, err := pageParams(r, defaultPerPage, maxPerPage)
	if err != nil {
		return nil, pageInfo{}, err
	}
	start := min((page-1)*perPage, len(items))
	end := min(start+perPage, len(items))
	out := append([]T{}, items[start:end]...)
	return out, pageInfo{
		Page:       page,
		PerPage:    perPage,
		Count:      len(out),
		TotalCount: len(items),
		TotalPages: (len(items) + perPage - 1) / perPage,
	}, nil
}
