import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// `x5c[2]` is never read by Apple's libraries (they count three entries and parse the first
/// two): a token whose third entry is not a certificate is valid when the rest verifies, with
/// a note in the `x5c` check saying the entry was ignored.
@Suite struct IgnoredRootTests {
    let pki = Fixtures.pki

    /// A transaction signed by the test leaf whose `x5c[2]` is `third`, written as raw JSON.
    func token(thirdEntryJSON third: String) -> String {
        let header = #"{"alg":"ES256","x5c":["\#(pki.x5c[0])","\#(pki.x5c[1])",\#(third)]}"#
        return TestPKI.compactJWS(headerJSON: header, payloadJSON: TestPayloads.transaction(), key: pki.leaf.key)
    }

    @Test(arguments: [
        (#""!!""#, "x5c[2] is not standard base64, so not a certificate"),
        (#""""#, "x5c[2] is an empty string, not a certificate"),
        (#""aGVsbG8=""#, "x5c[2] is not a DER X.509 certificate"),
        ("3", "x5c[2] is a number, not a certificate"),
        ("null", "x5c[2] is null, not a certificate"),
        (#"{"a":1}"#, "x5c[2] is an object, not a certificate"),
    ])
    func thirdEntryThatIsNotACertificateIsIgnored(_ third: String, _ expected: String) throws {
        let verifier = Verifier(options: Fixtures.options())
        // Twice: the second token's header comes from the cache.
        for _ in 0..<2 {
            let result = verifier.inspect(token(thirdEntryJSON: third), source: "test")
            #expect(result.status == .valid, "\(result.reason)")
            let x5c = try #require(result.check(.x5c))
            #expect(x5c.passed)
            #expect(x5c.detail.hasPrefix("3 entries (leaf, intermediate, x5c[2]); \(expected)"), "\(x5c.detail)")
            #expect(
                x5c.detail.hasSuffix(
                    ": ignored, as Apple's libraries ignore it (it is never trusted; only the configured roots are)"))
            #expect(result.check(.chainPath)?.passed == true)
            #expect(result.chain.count == 3)
            #expect(
                result.chain[2].error?.hasSuffix("(ignored)") == true, "\(String(describing: result.chain[2].error))")
            if third == #""""# { #expect(result.chain[2].error == "an empty string (ignored)") }
        }
    }

    @Test func theRestMustStillVerify() {
        // An ignored x5c[2] never rescues a chain: an untrusted leaf and intermediate still fail.
        let attacker = Fixtures.attacker
        let header = #"{"alg":"ES256","x5c":["\#(attacker.x5c[0])","\#(attacker.x5c[1])","!!"]}"#
        let result = Fixtures.inspect(
            TestPKI.compactJWS(
                headerJSON: header, payloadJSON: TestPayloads.transaction(),
                key: attacker.leaf.key))
        #expect(result.status == .invalidChain)
        #expect(result.failedCheck == .chain)
        #expect(result.check(.chain)?.detail.contains("not among the trusted roots") == true)
    }

    /// Only the third of exactly three entries is ignored: the leaf and intermediate must be
    /// certificates, there must be three entries, and a third that is a certificate reads as one.
    @Test func onlyTheThirdOfThreeEntriesIsIgnored() {
        // `leaf`, `intermediate`, `root` and `other` stand for certificates, the rest is JSON.
        let cases = [
            (
                #"[leaf,intermediate,"!!"]"#, Status.valid,
                "3 entries (leaf, intermediate, x5c[2]); x5c[2] is not standard base64"
            ),
            (
                #"[leaf,intermediate,other]"#, .valid,
                "3 certificates (leaf, intermediate, root); x5c[2] is never trusted"
            ),
            (#"[leaf,"!!",root]"#, .invalidChain, "x5c[1] is not standard base64"),
            (#"[leaf,3,root]"#, .invalidChain, "x5c[1] is a number, expected a base64 string"),
            (#"[3,intermediate,"!!"]"#, .invalidChain, "x5c[0] is a number, expected a base64 string"),
            (#"[leaf,intermediate,"!!",root]"#, .invalidChain, "x5c[2] is not standard base64"),
        ]
        for (entries, status, detail) in cases {
            let x5c = entries.replacingOccurrences(of: "leaf", with: "\"\(pki.x5c[0])\"")
                .replacingOccurrences(of: "intermediate", with: "\"\(pki.x5c[1])\"")
                .replacingOccurrences(of: "root", with: "\"\(pki.x5c[2])\"")
                .replacingOccurrences(of: "other", with: "\"\(Fixtures.attacker.x5c[1])\"")
            let header = #"{"alg":"ES256","x5c":\#(x5c)}"#
            let result = Fixtures.inspect(
                TestPKI.compactJWS(
                    headerJSON: header, payloadJSON: TestPayloads.transaction(),
                    key: pki.leaf.key))
            #expect(result.status == status, "\(entries): \(result.reason)")
            #expect(result.check(.x5c)?.detail.hasPrefix(detail) == true, "\(entries): \(result.reason)")
        }
    }
}
