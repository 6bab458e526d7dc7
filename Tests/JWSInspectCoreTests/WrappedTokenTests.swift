import AppStoreTestData
import TestPKI
import Testing

@testable import JWSInspectCore

/// Tokens as pasted: wrapped at 76 columns (e-mail, base64 tools), broken by a terminal,
/// or with spaces inside. The pieces are joined when together they make one JWS, and only then.
@Suite struct WrappedTokenTests {
    static let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
    static let other = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction(transactionId: "2"))

    /// `token` cut into lines of `width` characters.
    static func wrapped(_ token: String, width: Int, separator: String = "\n") -> String {
        var lines: [String] = []
        var rest = Substring(token)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(width)))
            rest = rest.dropFirst(width)
        }
        return lines.joined(separator: separator)
    }

    static func tokens(_ text: String) -> [String] {
        InputScanner.scan(Array(text.utf8), origin: "in").compactMap {
            if case .token(_, let token) = $0 { return token }
            return nil
        }
    }

    @Test(arguments: [76, 64, 1000, 17])
    func aTokenWrappedOverLinesIsJoined(_ width: Int) {
        let text = Self.wrapped(Self.token, width: width) + "\n"
        let pieces = (Self.token.count + width - 1) / width
        let source = pieces == 1 ? "in:1" : "in:1 (rejoined from \(pieces) pieces)"
        #expect(InputScanner.scan(Array(text.utf8), origin: "in") == [.token(source: source, token: Self.token)])
    }

    @Test(arguments: [" ", "  ", "\t", "\r\n", "\n    "])
    func aTokenBrokenBySpacesOrIndentedLinesIsJoined(_ separator: String) {
        #expect(Self.tokens(Self.wrapped(Self.token, width: 100, separator: separator)) == [Self.token])
    }

    /// A wrap that falls just before or after a dot.
    @Test func aWrapAtADotIsJoined() throws {
        let parts = Self.token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(Self.tokens("\(parts[0]).\n\(parts[1]).\n\(parts[2])\n") == [Self.token])
        #expect(Self.tokens("\(parts[0])\n.\(parts[1])\n.\(parts[2])\n") == [Self.token])
    }

    @Test func tokensOnTheirOwnLinesStaySeparate() {
        #expect(Self.tokens("\(Self.token)\n\(Self.other)\n") == [Self.token, Self.other])
        #expect(Self.tokens("\(Self.token) \(Self.other)") == [Self.token, Self.other])
        // Two wrapped tokens one after the other.
        let text = Self.wrapped(Self.token, width: 76) + "\n" + Self.wrapped(Self.other, width: 64) + "\n"
        #expect(Self.tokens(text) == [Self.token, Self.other])
    }

    /// A truncated token followed by a whole one: nothing is joined, each is reported.
    @Test func aTruncatedTokenIsNotJoinedToTheNext() {
        let truncated = String(Self.token.prefix(500))
        let items = InputScanner.scan(Array("\(truncated)\n\(Self.other)\n".utf8), origin: "in")
        #expect(items.count == 2)
        #expect(items.last == .token(source: "in:2", token: Self.other))
        if case .malformed(let source, _) = items.first { #expect(source == "in:1") } else { Issue.record("\(items)") }
    }

    /// A token with a short signature, then base64 text that would complete it into a signature
    /// no encoder writes (its last character has unused bits set): not one token wrapped, so
    /// the pieces are read apart (found by `make fuzz` in issue 52: a truncated token, then a
    /// damaged receipt's base64 lines). With a canonical last character, it is joined.
    @Test func piecesJoiningIntoANonCanonicalSignatureStayApart() {
        let truncated = "eyJhbGciOiJFUzI1NiJ9.e30.AA"
        let rest = String(repeating: "A", count: 83)
        let apart = InputScanner.scan(Array("\(truncated)\n\(rest)B\n".utf8), origin: "in")
        #expect(apart.first == .token(source: "in:1", token: truncated), "\(apart)")
        let joined = InputScanner.scan(Array("\(truncated)\n\(rest)A\n".utf8), origin: "in")
        #expect(joined == [.token(source: "in:1 (rejoined from 2 pieces)", token: truncated + rest + "A")])
    }

    /// Pieces that do not make one JWS (an HS256 JWT's 43-character signature, then words) stay apart.
    @Test func piecesThatDoNotMakeOneJWSStayApart() {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"sub":"1"}"#.utf8))
        let jwt = "\(header).\(payload).\(String(repeating: "s", count: 43))"
        #expect(Self.tokens("\(jwt)\nsome words after it\n") == [jwt])
        #expect(Self.tokens("\(jwt) \(jwt)") == [jwt, jwt])
    }

    /// Joining is attempted once per stretch of pieces: many header-shaped words in a row
    /// are scanned in linear time (this would take minutes if each restarted the join).
    @Test func joiningIsLinear() {
        let word = "eyJhbGciOiJFUzI1NiJ9"
        let text = Array(repeating: word, count: 40_000).joined(separator: " ")
        #expect(InputScanner.scan(Array(text.utf8), origin: "in").count == 40_000)
    }
}
