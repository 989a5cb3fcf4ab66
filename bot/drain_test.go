package bot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestDrainListenerAcceptsTheQueue: connections the kernel queued before a
// stop began are accepted, not reset; then the listener closes and refuses
// new ones.
func TestDrainListenerAcceptsTheQueue(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dl := &drainListener{Listener: ln}
	defer dl.Close()
	// Nobody accepts yet: the handshakes complete into the kernel's queue.
	var queued []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		queued = append(queued, c)
	}
	dl.drain(100 * time.Millisecond)
	for i := range queued {
		c, err := dl.Accept()
		if err != nil {
			t.Fatalf("accept of queued connection %d after the drain began: %v", i, err)
		}
		c.Close()
	}
	if c, err := dl.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("accept after the window = %v, %v; want net.ErrClosed", c, err)
	}
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("a connection after the drain was accepted; want it refused")
	}
	if err := dl.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
}

// TestServeListenerAnswersConnectionsOpenAtStop: requests on connections
// opened before the stop are all answered.
func TestServeListenerAnswersConnectionsOpenAtStop(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ServeListener(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	}()
	const n = 16
	conns := make([]net.Conn, n)
	for i := range conns {
		if conns[i], err = net.Dial("tcp", ln.Addr().String()); err != nil {
			t.Fatal(err)
		}
		defer conns[i].Close()
	}
	cancel()
	for i, c := range conns {
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d, opened before the stop: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("connection %d: status %d", i, resp.StatusCode)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeListener = %v; want nil after a clean stop", err)
		}
	case <-time.After(ShutdownTimeout + time.Minute):
		t.Fatal("ServeListener did not return")
	}
}
