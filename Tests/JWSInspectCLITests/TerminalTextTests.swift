import Testing

@testable import JWSInspectCLI

/// Text from a token reaches a terminal with its control characters escaped (C0, DEL, C1), and
/// everything else as it is.
struct TerminalTextTests {
    @Test(arguments: [
        ("\u{1b}[31mred", "\\u{1b}[31mred"), ("bell\u{7}", "bell\\u{7}"), ("del\u{7f}", "del\\u{7f}"),
        ("csi\u{9b}2J", "csi\\u{9b}2J"), ("c1 first \u{80} last \u{9f}", "c1 first \\u{80} last \\u{9f}"),
        ("tab\tnew\nline", "tab\\u{9}new\\u{a}line"), ("gpj.\u{202E}exe", "gpj.\\u{202e}exe"),
        ("a\u{2028}b\u{2029}c", "a\\u{2028}b\\u{2029}c"),
        ("\u{2066}x\u{2069}\u{200F}\u{61C}", "\\u{2066}x\\u{2069}\\u{200f}\\u{61c}"),
        ("é © — \u{a0} \u{a0}\u{9b}", "é © — \u{a0} \u{a0}\\u{9b}"),
    ])
    func controlsAreEscaped(_ text: String, _ shown: String) {
        #expect(TerminalText.safe(text) == shown)
    }

    /// A control at every offset of a long text, ASCII or not around it, is found.
    @Test func aControlAnywhereInALongTextIsFound() {
        for control in ["\u{0}", "\u{1b}", "\u{1f}", "\u{7f}", "\u{80}", "\u{9b}", "\u{9f}", "\u{202e}", "\u{2028}"] {
            for filler in ["a", "é", " ~"] {
                for offset in 0..<20 {
                    let text = String(repeating: filler, count: offset) + control + String(repeating: filler, count: 9)
                    #expect(TerminalText.safe(text) != text, "\(offset) \(filler)")
                }
            }
        }
        let clean = String(repeating: "0123456789 !~ABC{}", count: 20)
        #expect(TerminalText.safe(clean) == clean)
    }

    @Test(arguments: [
        "", "plain ASCII", "é © — ü 𝄞 \u{a0}\u{bf}\u{c0}", "2026-12-04T18:17:57.855Z",
        "— – … ‘’ “” € ™ ⁄ ‰ \u{2027}\u{202f}",
        "\u{61b}\u{61d}",
    ])
    func otherTextIsKept(_ text: String) {
        #expect(TerminalText.safe(text) == text)
    }
}
