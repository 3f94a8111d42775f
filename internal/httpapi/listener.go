package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"marketplace/internal/market"
)

// Some requests never reach a handler: net/http itself refuses a request
// line or headers over Server.MaxHeaderBytes (431), control bytes in a
// header, a missing Host, an unknown transfer encoding. It writes those
// answers as plain text straight onto the connection. EnvelopeListener
// wraps the server's listener so that those answers, too, are the JSON
// error envelope every client of the API expects.

// cannedHeaders is what net/http writes after the status line of the
// answers it makes up itself (net/http's conn.serve, errorHeaders): no
// answer of a handler looks like this, since every one carries a Date.
const cannedHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// EnvelopeListener returns ln with every connection's canned plain-text
// error answers rewritten as the error envelope; log records each one.
func EnvelopeListener(ln net.Listener, log *slog.Logger) net.Listener {
	return &envelopeListener{Listener: ln, log: log}
}

type envelopeListener struct {
	net.Listener
	log *slog.Logger
}

func (l *envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &envelopeConn{Conn: c, log: l.log}, nil
}

// envelopeConn remembers the start of the request being read (to tell the
// surface, and so the casing, of an answer) and rewrites canned answers.
type envelopeConn struct {
	net.Conn
	log *slog.Logger

	mu   sync.Mutex
	head []byte // the first bytes read since the last answer
}

const headKeep = 256

func (c *envelopeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if room := headKeep - len(c.head); room > 0 {
			c.head = append(c.head, p[:min(n, room)]...)
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *envelopeConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	head := c.head
	c.head = nil
	c.mu.Unlock()
	status, text, ok := cannedAnswer(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(envelopeAnswer(status, text, head, c.log)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// cannedAnswer recognises an answer net/http made up and returns its status
// and its reason text ("Bad Request: invalid header name").
func cannedAnswer(p []byte) (int, string, bool) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		return 0, "", false
	}
	eol := bytes.Index(p, []byte("\r\n"))
	if eol < 0 || !bytes.HasPrefix(p[eol:], []byte(cannedHeaders)) {
		return 0, "", false
	}
	line := string(p[len("HTTP/1.1 "):eol])
	code, text, _ := strings.Cut(line, " ")
	status, err := strconv.Atoi(code)
	if err != nil || status < 400 {
		return 0, "", false
	}
	return status, text, true
}

// envelopeAnswer is the whole HTTP answer in the error envelope; the
// request's first bytes tell which surface's casing it takes.
func envelopeAnswer(status int, text string, head []byte, log *slog.Logger) []byte {
	code, msg := market.CodeValidation, "the request is malformed"
	switch {
	case status == 431:
		code, msg = market.CodePayloadTooLarge, "the request line and headers are larger than 64 KiB"
	case status == 501:
		msg = "the request's transfer encoding is not supported"
	}
	if _, detail, ok := strings.Cut(text, ": "); ok && status != 431 {
		msg += ": " + detail
	}
	id := newRequestID()
	b := bytes.HasPrefix(requestPath(head), []byte("/v1/"))
	body := envelope{Success: false, Error: &errorBody{Code: code, Message: msg}, Meta: metaA{RequestID: id, Timestamp: time.Now().UTC().Format(time.RFC3339Nano)}}
	if b {
		body.Meta = metaB{RequestID: id, Timestamp: time.Now().UTC().Format(time.RFC3339Nano)}
	}
	if code == market.CodeValidation {
		body.Error.Details = map[string]any{"fields": []map[string]string{{"field": "request", "message": msg}}}
	}
	js, _ := json.Marshal(body)
	js = append(js, '\n')
	if log != nil {
		log.Warn("request refused before routing", "request_id", id, "status", status, "reason", text)
	}
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + strings.SplitN(text, ":", 2)[0] + "\r\n")
	out.WriteString("Content-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n")
	out.WriteString("X-Request-Id: " + id + "\r\nContent-Length: " + strconv.Itoa(len(js)) + "\r\nConnection: close\r\n\r\n")
	out.Write(js)
	return out.Bytes()
}

// requestPath is the target of a request line ("GET /v1/x HTTP/1.1").
func requestPath(head []byte) []byte {
	_, rest, ok := bytes.Cut(head, []byte(" "))
	if !ok {
		return nil
	}
	target, _, _ := bytes.Cut(rest, []byte(" "))
	return target
}
