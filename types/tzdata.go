package types

// The time zone database is embedded, so LoadLocation (DATETIME(ts, tz),
// EXTRACT(… AT TIME ZONE tz), FORMAT_TIMESTAMP(…, tz)) knows IANA names in
// a static binary on an image without /usr/share/zoneinfo. It costs about
// 450KB of binary.
import _ "time/tzdata"
