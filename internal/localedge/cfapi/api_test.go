package cfapi

import (
	"errors"
	"testing"

	"github.com/cloudflare/cloudflare-go/v7"
)

func asCloudflareError(err error, target **cloudflare.Error) bool { return errors.As(err, target) }

func TestProviderTrafficThroughCloudflareGo(t *testing.T) {
	var purged []Purge
	srv, ts := startServer(t, Config{SeedFallbackOrigin: "fallback", Hooks: Hooks{Purged: func(p Purge) { purged = append(purged, p) }}})
	id := srv.Identity()
	driveProviderTraffic(t, newClient(ts.URL, id.APIToken, 0), id, trafficOptions{})
	if len(purged) != 1 || len(purged[0].Files) != 2 {
		t.Errorf("Purged hook saw %+v, want one purge of two URLs", purged)
	}
}
