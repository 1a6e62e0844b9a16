//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris

package router

import (
	"net"
	"testing"
	"time"
)

// loopbackPair returns the two ends of a TCP connection on loopback.
func loopbackPair(t testing.TB) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }() // only the one connection was wanted
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { _ = client.Close(); _ = server.Close() }) // tests may have closed them
	return client, server
}

func TestIdleProbe(t *testing.T) {
	client, server := loopbackPair(t)
	p := newIdleProbe(client)
	if !p.stillQuiet() {
		t.Fatal("a connection nothing arrived on is not quiet")
	}
	// The read deadline of the previous exchange may pass while the connection idles; the
	// check must not mistake that for activity.
	if err := client.SetReadDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if !p.stillQuiet() {
		t.Error("a quiet connection with a past read deadline is not quiet")
	}
	if err := client.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}

	if _, err := server.Write([]byte("HTTP/1.1 200 OK\r\n")); err != nil {
		t.Fatal(err)
	}
	for range 2 { // peeking consumes nothing: the bytes stay, and so does the verdict
		if p.stillQuiet() {
			t.Error("a connection holding unsolicited bytes is quiet")
		}
	}
	buf := make([]byte, 64)
	n, err := client.Read(buf)
	if err != nil || string(buf[:n]) != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("after the checks the bytes read back as %q, %v", buf[:n], err)
	}

	if err := server.Close(); err != nil {
		t.Fatal(err)
	}
	if err := client.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	// Wait for the FIN itself (a blocking read sees it), then peek again.
	if _, err := client.Read(buf); err == nil {
		t.Fatal("read data after the peer closed")
	}
	if p.stillQuiet() {
		t.Error("a connection the peer closed is quiet")
	}
}

func TestIdleProbe_ClosedLocally(t *testing.T) {
	client, _ := loopbackPair(t)
	p := newIdleProbe(client)
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	if p.stillQuiet() {
		t.Error("a closed connection is quiet")
	}
}

// BenchmarkIdleProbe is the check's cost per reused connection.
func BenchmarkIdleProbe(b *testing.B) {
	client, _ := loopbackPair(b)
	p := newIdleProbe(client)
	b.ReportAllocs()
	for b.Loop() {
		if !p.stillQuiet() {
			b.Fatal("not quiet")
		}
	}
}

func TestClientLeft(t *testing.T) {
	client, server := loopbackPair(t)
	// Bytes (a pipelined request) say nothing, and stay to be read.
	if _, err := client.Write([]byte("GET /next HTTP/1.1\r\n")); err != nil {
		t.Fatal(err)
	}
	if clientLeft(server) {
		t.Error("a connection with a pipelined request is gone")
	}
	buf := make([]byte, 64)
	if n, err := server.Read(buf); err != nil || string(buf[:n]) != "GET /next HTTP/1.1\r\n" {
		t.Fatalf("after the watch the bytes read back as %q, %v", buf[:n], err)
	}
	// A read deadline that passes ends the wait without a verdict.
	if err := server.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if clientLeft(server) {
		t.Error("a quiet connection is gone when the wait's deadline passes")
	}
	if err := server.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	// The client's FIN, even a half-close, is its leaving.
	tcp, ok := client.(*net.TCPConn)
	if !ok {
		t.Fatalf("the client's connection is a %T, not TCP", client)
	}
	if err := tcp.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if !clientLeft(server) {
		t.Error("a connection the client closed is not gone")
	}
}

func TestClientLeft_ClosedLocally(t *testing.T) {
	_, server := loopbackPair(t)
	if err := server.Close(); err != nil {
		t.Fatal(err)
	}
	if !clientLeft(server) {
		t.Error("a connection closed on the router's side is not gone")
	}
}
