package ingest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var severities = []string{"emergency", "alert", "critical", "error", "warning", "notice", "info", "debug"}

// facilities are Logflare's names for the 24 syslog facilities
// (lib/logflare/logs/source_parsers/syslog_parser_helpers.ex), kept as
// Logflare has them (10 is auth again, 15 clock again) so that queries
// written for Logflare's syslog sources match.
var facilities = []string{"kernel", "user", "mail", "system", "auth", "syslogd", "line_printer", "network_news",
	"uucp", "clock", "auth", "ftp", "ntp", "log_audit", "log_alert", "clock",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}

// ansiColour matches the terminal colour codes Logflare strips from a
// syslog message (message_text keeps them).
var ansiColour = regexp.MustCompile(`\x1b\[[0-9;]*m(?:\x1b\[K)?`)

// decodeSyslog reads syslog lines, one a line, or logplex frames
// ("<octet count> <line>", back to back or newline-separated).
func decodeSyslog(body []byte) (*Batch, error) {
	b := &Batch{}
	i := 0
	for _, line := range syslogLines(body) {
		ev, reason := parseSyslog(line)
		if reason != "" {
			b.Refuse(i, "%s", reason)
		} else {
			b.Add(i, ev)
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
	// Logflare's layout (plugs/syslog_parser.ex): the message, the time,
	// and everything else the parser found in metadata, level = severity.
	meta := map[string]any{"priority": pri, "severity": severities[pri%8], "level": severities[pri%8],
		"facility": facilities[pri/8], "message_raw": string(line)}
	var ts, msg string
	var sd []map[string]any
	if v, rest, ok := strings.Cut(s, " "); ok && v == "1" {
		// RFC 5424: VERSION TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG
		parts := strings.SplitN(rest, " ", 6)
		if len(parts) < 5 {
			return nil, "an RFC 5424 line needs TIMESTAMP HOSTNAME APP-NAME PROCID MSGID"
		}
		ts = parts[0]
		for i, k := range []string{"hostname", "appname", "process_id", "message_id"} {
			if parts[i+1] != "-" {
				meta[k] = parts[i+1]
			}
		}
		if len(parts) == 6 {
			sd, msg = structuredData(parts[5])
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
		meta["hostname"] = host
		if tag, m, ok := strings.Cut(rest, ": "); ok && !strings.Contains(tag, " ") {
			if app, pid, ok := strings.Cut(strings.TrimSuffix(tag, "]"), "["); ok {
				meta["appname"], meta["process_id"] = app, pid
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
	msg = strings.TrimPrefix(msg, "\ufeff")
	if msg != "" {
		meta["message_text"] = msg
		// A message that is a JSON object is also kept, as Logflare keeps
		// it, as a structured-data element with id "json".
		var obj map[string]any
		if t := strings.TrimSpace(msg); strings.HasPrefix(t, "{") && json.Unmarshal([]byte(t), &obj) == nil && obj != nil {
			obj["id"] = "json"
			sd = append([]map[string]any{obj}, sd...)
		}
	}
	if len(sd) > 0 {
		meta["sd"] = sd
	}
	text := msg
	if strings.Contains(text, "\x1b") { // most lines have no colour codes: no regexp pass
		text = ansiColour.ReplaceAllString(text, "")
	}
	ev := map[string]any{"event_message": text, "metadata": meta}
	if ts != "-" {
		ev["timestamp"] = ts
	}
	out, _ := json.Marshal(ev)
	return out, ""
}

// structuredData reads RFC 5424 STRUCTURED-DATA ("-" or [id name="value"
// …]…) off the front of s: each element as {id, name: value, …}, as
// Logflare's parser gives them, and the message after it.
func structuredData(s string) ([]map[string]any, string) {
	if strings.HasPrefix(s, "- ") || s == "-" {
		return nil, strings.TrimPrefix(strings.TrimPrefix(s, "-"), " ")
	}
	var out []map[string]any
	for strings.HasPrefix(s, "[") {
		elem := map[string]any{}
		i := 1
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != ']' {
			j++
		}
		elem["id"] = s[i:j]
		i = j
		for i < len(s) && s[i] == ' ' {
			// name="value", where \", \\ and \] are escapes (and a "]"
			// inside the quotes ends nothing: senders do not always escape
			// it as RFC 5424 asks).
			i++
			eq := strings.IndexByte(s[i:], '=')
			if eq < 0 || i+eq+1 >= len(s) || s[i+eq+1] != '"' {
				return out, "" // malformed: the rest is not a message either
			}
			name := s[i : i+eq]
			i += eq + 2
			var v strings.Builder
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\' || s[i+1] == ']') {
					i++
				}
				v.WriteByte(s[i])
				i++
			}
			i++ // the closing quote
			elem[name] = v.String()
		}
		out = append(out, elem)
		if i >= len(s) || s[i] != ']' {
			return out, ""
		}
		s = s[i+1:]
	}
	return out, strings.TrimPrefix(s, " ")
}
