package sqlfunc

import (
	"encoding/binary"
	"net/netip"
	"strings"

	"logq/expr"
	"logq/types"
)

// The NET functions: NET.HOST of a URL, and IP addresses as BYTES (4 bytes
// for IPv4, 16 for IPv6, in network order) to and from their text, masks
// and truncation, and IPv4 as INT64. A malformed address is an error (NULL
// under NET.SAFE_IP_FROM_STRING or SAFE.).
func registerNetFuncs() {
	expr.Register("net.host", def(1, 1, sig(types.KindString, types.KindString), func(c *expr.Call, a []types.Value) (types.Value, error) {
		if h, ok := netHost(a[0].S); ok {
			return types.StringValue(h), nil
		}
		return types.NullOf(types.String), nil
	}, false))
	fromString := func(safe bool) func(*expr.Call, []types.Value) (types.Value, error) {
		return func(c *expr.Call, a []types.Value) (types.Value, error) {
			ip, err := parseIP(a[0].S)
			if err != nil {
				if safe {
					return types.NullOf(types.Bytes), nil
				}
				return types.Value{}, err
			}
			return types.BytesValue(string(ip)), nil
		}
	}
	expr.Register("net.ip_from_string", def(1, 1, sig(types.KindString, types.KindBytes), fromString(false), false))
	expr.Register("net.safe_ip_from_string", def(1, 1, sig(types.KindString, types.KindBytes), fromString(true), false))
	expr.Register("net.ip_to_string", def(1, 1, sig(types.KindBytes, types.KindString), func(c *expr.Call, a []types.Value) (types.Value, error) {
		b := []byte(a[0].S)
		switch len(b) {
		case 4:
			return types.StringValue(netip.AddrFrom4([4]byte(b)).String()), nil
		case 16:
			return types.StringValue(netip.AddrFrom16([16]byte(b)).String()), nil
		}
		return types.Value{}, expr.EvalErr("NET.IP_TO_STRING: an address has 4 or 16 bytes, not %d", len(b))
	}, false))
	expr.Register("net.ip_net_mask", def(2, 2, sig(types.KindInt64, types.KindInt64, types.KindBytes), func(c *expr.Call, a []types.Value) (types.Value, error) {
		n, prefix := a[0].I, a[1].I
		if n != 4 && n != 16 {
			return types.Value{}, expr.EvalErr("NET.IP_NET_MASK: the output has 4 or 16 bytes, not %d", n)
		}
		if prefix < 0 || prefix > 8*n {
			return types.Value{}, expr.EvalErr("NET.IP_NET_MASK: a prefix of %d bytes is 0 to %d bits, not %d", n, 8*n, prefix)
		}
		return types.BytesValue(string(prefixMask(make([]byte, n), int(prefix), 0xff))), nil
	}, false))
	expr.Register("net.ip_trunc", def(2, 2, sig(types.KindBytes, types.KindInt64, types.KindBytes), func(c *expr.Call, a []types.Value) (types.Value, error) {
		b, prefix := []byte(a[0].S), a[1].I
		if len(b) != 4 && len(b) != 16 {
			return types.Value{}, expr.EvalErr("NET.IP_TRUNC: an address has 4 or 16 bytes, not %d", len(b))
		}
		if prefix < 0 || prefix > int64(8*len(b)) {
			return types.Value{}, expr.EvalErr("NET.IP_TRUNC: the prefix of a %d-byte address is 0 to %d bits, not %d", len(b), 8*len(b), prefix)
		}
		mask := prefixMask(make([]byte, len(b)), int(prefix), 0xff)
		out := make([]byte, len(b))
		for i := range b {
			out[i] = b[i] & mask[i]
		}
		return types.BytesValue(string(out)), nil
	}, false))
	expr.Register("net.ipv4_from_int64", def(1, 1, sig(types.KindInt64, types.KindBytes), func(c *expr.Call, a []types.Value) (types.Value, error) {
		i := a[0].I
		if i < -0x80000000 || i > 0xFFFFFFFF {
			return types.Value{}, expr.EvalErr("NET.IPV4_FROM_INT64: %d is not a 32-bit address (-0x80000000 to 0xFFFFFFFF)", i)
		}
		return types.BytesValue(string(binary.BigEndian.AppendUint32(nil, uint32(i)))), nil
	}, false))
	expr.Register("net.ipv4_to_int64", def(1, 1, sig(types.KindBytes, types.KindInt64), func(c *expr.Call, a []types.Value) (types.Value, error) {
		if len(a[0].S) != 4 {
			return types.Value{}, expr.EvalErr("NET.IPV4_TO_INT64: an IPv4 address has 4 bytes, not %d", len(a[0].S))
		}
		return types.IntValue(int64(binary.BigEndian.Uint32([]byte(a[0].S)))), nil
	}, false))
}

// parseIP reads an IPv4 (dotted, four decimal parts) or IPv6 address,
// without a zone or a prefix length, as 4 or 16 bytes.
func parseIP(s string) ([]byte, error) {
	ip, err := netip.ParseAddr(s)
	if err != nil || ip.Zone() != "" {
		return nil, expr.EvalErr("NET.IP_FROM_STRING: %q is not an IPv4 or IPv6 address", s)
	}
	return ip.AsSlice(), nil
}

// prefixMask sets the first bits bits of b to one (fill is 0xff).
func prefixMask(b []byte, bits int, fill byte) []byte {
	for i := range b {
		switch {
		case bits >= 8:
			b[i] = fill
		case bits > 0:
			b[i] = fill << (8 - bits)
		}
		bits -= 8
	}
	return b
}

// netHost takes the host out of a URL as NET.HOST does: surrounding spaces
// trimmed, an optional scheme and user info dropped, the port removed, the
// case kept; false when nothing is left.
func netHost(u string) (string, bool) {
	s := strings.TrimSpace(u)
	if i := strings.Index(s, "://"); i >= 0 && validScheme(s[:i]) {
		s = s[i+3:]
	} else if strings.HasPrefix(s, "//") {
		s = s[2:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, ']'); i >= 0 {
			s = s[:i+1]
		}
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s, s != ""
}

func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')
		if !ok {
			return false
		}
	}
	return true
}
