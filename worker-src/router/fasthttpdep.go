package router

// Temporary: makes the router depend on fasthttp until the fasthttp forwarding path lands (issue 17).
import _ "github.com/valyala/fasthttp"
