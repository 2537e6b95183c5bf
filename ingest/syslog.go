package ingest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

var severities = []string{"emergency", "alert", "critical", "error", "warning", "notice", "info", "debug"}

var facilities = []string{"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
	"authpriv", "ftp", "ntp", "security", "console", "solaris-cron",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}

// decodeSyslog reads syslog lines, one a line, or logplex frames
// ("<octet count> <line>", back to back or newline-separated).
func decodeSyslog(body []byte) (*Batch, error) {
	b := &Batch{}
	i := 0
	for _, line := range syslogLines(body) {
		ev, reason := parseSyslog(line)
		if reason != "" {
			b.refuse(i, "%s", reason)
		} else {
			b.add(i, ev)
		}
		i++
	}
	if i == 0 {
		return nil, &BodyError{"the body holds no syslog line"}
	}
	if len(b.Events) == 0 {
		return nil, &BodyError{"no line of the body is a syslog message (<PRI>VERSION TIMESTAMP HOST APP PROCID MSGID SD MSG)"}
	}
	return b, nil
}

// syslogLines splits octet-counted frames when the body starts with a
// count, else by lines.
func syslogLines(body []byte) [][]byte {
	var out [][]byte
	rest := bytes.TrimLeft(body, " \r\n")
	for len(rest) > 0 {
		sp := bytes.IndexByte(rest, ' ')
		n, err := strconv.Atoi(string(rest[:max(sp, 0)]))
		if sp <= 0 || err != nil || n <= 0 || sp+1+n > len(rest) || rest[sp+1] != '<' {
			break // not octet counting: fall back to lines for the rest
		}
		out = append(out, bytes.TrimRight(rest[sp+1:sp+1+n], "\r\n"))
		rest = bytes.TrimLeft(rest[sp+1+n:], " \r\n")
	}
	for _, l := range bytes.Split(rest, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// parseSyslog parses one RFC 5424 line (or an RFC 3164 one) into an event.
func parseSyslog(line []byte) ([]byte, string) {
	s := string(line)
	if !strings.HasPrefix(s, "<") {
		return nil, "a syslog line starts with <PRI>"
	}
	end := strings.IndexByte(s, '>')
	pri, err := strconv.Atoi(s[1:max(end, 1)])
	if end < 2 || end > 4 || err != nil || pri < 0 || pri > 191 {
		return nil, "a syslog line starts with <PRI>, a number from 0 to 191"
	}
	s = s[end+1:]
	meta := map[string]string{"severity": severities[pri%8], "facility": facilities[pri/8]}
	var ts, msg string
	if v, rest, ok := strings.Cut(s, " "); ok && v == "1" {
		// RFC 5424: VERSION TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG
		parts := strings.SplitN(rest, " ", 6)
		if len(parts) < 5 {
			return nil, "an RFC 5424 line needs TIMESTAMP HOSTNAME APP-NAME PROCID MSGID"
		}
		ts = parts[0]
		for i, k := range []string{"host", "appname", "procid", "msgid"} {
			if parts[i+1] != "-" {
				meta[k] = parts[i+1]
			}
		}
		if len(parts) == 6 {
			msg = skipStructuredData(parts[5])
		}
	} else if len(s) >= 16 {
		// RFC 3164: Mmm dd hh:mm:ss HOST TAG[PID]: MSG
		t, err := time.Parse(time.Stamp, s[:15])
		if err != nil {
			return nil, "a syslog line has an RFC 5424 or RFC 3164 header"
		}
		now := time.Now().UTC()
		ts = t.AddDate(now.Year(), 0, 0).Format(time.RFC3339)
		host, rest, _ := strings.Cut(strings.TrimSpace(s[15:]), " ")
		meta["host"] = host
		if tag, m, ok := strings.Cut(rest, ": "); ok && !strings.Contains(tag, " ") {
			if app, pid, ok := strings.Cut(strings.TrimSuffix(tag, "]"), "["); ok {
				meta["appname"], meta["procid"] = app, pid
			} else {
				meta["appname"] = tag
			}
			msg = m
		} else {
			msg = rest
		}
	} else {
		return nil, "a syslog line has an RFC 5424 or RFC 3164 header"
	}
	ev := map[string]any{"event_message": strings.TrimPrefix(msg, "\ufeff"), "metadata": meta}
	if ts != "-" {
		ev["timestamp"] = ts
	}
	out, _ := json.Marshal(ev)
	return out, ""
}

// skipStructuredData drops RFC 5424 STRUCTURED-DATA ("-" or [..][..]).
func skipStructuredData(s string) string {
	if strings.HasPrefix(s, "- ") || s == "-" {
		return strings.TrimPrefix(strings.TrimPrefix(s, "-"), " ")
	}
	for strings.HasPrefix(s, "[") {
		// Inside a quoted PARAM-VALUE "]" ends nothing (senders do not
		// always escape it as RFC 5424 asks).
		esc, quoted := false, false
		i := 1
		for ; i < len(s) && !(s[i] == ']' && !quoted && !esc); i++ {
			switch {
			case esc:
				esc = false
			case s[i] == '\\':
				esc = true
			case s[i] == '"':
				quoted = !quoted
			}
		}
		if i >= len(s) {
			return ""
		}
		s = s[i+1:]
	}
	return strings.TrimPrefix(s, " ")
}
