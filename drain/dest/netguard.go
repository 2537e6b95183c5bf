package dest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
)

// errPrivate is a connection refused under Options.DenyPrivate.
var errPrivate = errors.New("refused: private address")

// blocked are the address ranges DenyPrivate refuses: Logflare's SSRF list
// (0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.168/16,
// 255.255.255.255, ::, ::1, ::ffff:0:0/96 (read as the IPv4 address it
// maps), fc00::/7, fe80::/10) and the other special-purpose ranges of the
// IANA registries that no public endpoint uses.
var blocked = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
		"172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
		"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
		"::/96", "100::/64", "2001::/32", "2001:db8::/32", "64:ff9b:1::/48",
		"fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// publicAddr reports whether DenyPrivate lets ip be dialled. An IPv6
// address that embeds an IPv4 one (mapped, NAT64, 6to4) is judged by it.
func publicAddr(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() {
		return false
	}
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			return publicAddr(netip.AddrFrom4([4]byte(b[12:16])))
		case sixTo4.Contains(ip):
			return publicAddr(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// checkAddr returns errPrivate (wrapped, with the address) when an
// "ip:port" address may not be dialled.
func checkAddr(address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !publicAddr(ip) {
		return fmt.Errorf("%w %s", errPrivate, address)
	}
	return nil
}

// denyControl is a net.Dialer's ControlContext under DenyPrivate: it sees
// the resolved address each connection attempt is about to use.
func denyControl(_ context.Context, _, address string, _ syscall.RawConn) error {
	return checkAddr(address)
}

type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// checkedDial wraps a dial function of a caller's transport: the peer a
// connection reached is checked before the connection is used.
func checkedDial(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if ta, ok := c.RemoteAddr().(*net.TCPAddr); !ok || !publicAddr(ta.AddrPort().Addr()) {
			_ = c.Close()
			return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("%w %s", errPrivate, c.RemoteAddr())}
		}
		return c, nil
	}
}

// guardTransport returns a copy of a caller's transport that refuses
// non-public peers and uses no proxy (through a proxy the address dialled
// is the proxy's).
func guardTransport(t *http.Transport) *http.Transport {
	t = t.Clone()
	t.Proxy = nil
	t.OnProxyConnectResponse = nil
	if t.DialContext == nil && t.Dial == nil {
		t.DialContext = (&net.Dialer{Timeout: dialTimeout, KeepAlive: keepAlive, ControlContext: denyControl}).DialContext
	} else {
		inner := t.DialContext
		if inner == nil {
			d := t.Dial
			inner = func(_ context.Context, n, a string) (net.Conn, error) { return d(n, a) }
		}
		t.DialContext = checkedDial(inner)
	}
	switch {
	case t.DialTLSContext != nil:
		t.DialTLSContext = checkedDial(t.DialTLSContext)
	case t.DialTLS != nil:
		d := t.DialTLS
		t.DialTLSContext = checkedDial(func(_ context.Context, n, a string) (net.Conn, error) { return d(n, a) })
	}
	return t
}
