package cfapi_test

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// The `localedge` sub-command starts the API like this and hands the runtime its hooks.
func ExampleNew() {
	srv, err := cfapi.New(cfapi.Config{
		StateDir:           "/tmp/kamuidash-localedge", // --state-dir
		AutoValidate:       30 * time.Second,           // --auto-validate
		KVPropagationDelay: time.Second,
		Hooks: cfapi.Hooks{
			ScriptChanged: func(e cfapi.ScriptEvent) { /* reload the Worker in workerd */ },
			KVChanged:     func(e cfapi.KVEvent) { /* update the runtime's KV store */ },
			TunnelChanged: func(e cfapi.TunnelEvent) { /* re-read the ingress rules */ },
			Purged:        func(p cfapi.Purge) { /* drop p.Files from the Cache API */ },
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Close cancels pending hooks; it never fails.
	defer func() { _ = srv.Close() }()
	ln, err := net.Listen("tcp", "127.0.0.1:0") // --api
	if err != nil {
		log.Fatal(err)
	}
	id := srv.Identity()
	fmt.Println("KAMUIDASH_API_BASE_URL=http://" + ln.Addr().String() + cfapi.APIPrefix)
	fmt.Println("KAMUIDASH_ACCOUNT_ID=" + id.AccountID)
	go func() { log.Fatal(http.Serve(ln, srv)) }()
}
