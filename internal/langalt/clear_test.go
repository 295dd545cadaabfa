package langalt

import "testing"

func TestClearLanguage(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"使用 apt 安装软件包，并管理系统的依赖关系", "zh"},
		{"How to configure the network interfaces of the system", "en"},
		{"iptables nftables firewall rules", ""},            // names only: no function words
		{"Wie man das Netzwerk konfiguriert und prüft", ""}, // accented Latin
		{"ネットワークの設定", ""},                                   // kana
		{"네트워크 설정 방법", ""},                                  // Hangul
		{"", ""},
	} {
		if got := ClearLanguage(c.text); got != c.want {
			t.Errorf("ClearLanguage(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
