package handlers

import "encoding/base64"

func flashEncode(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func flashDecode(v string) string {
	if len(v) > 0 && v[0] == '!' {
		v = v[1:]
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return ""
	}
	return string(b)
}
