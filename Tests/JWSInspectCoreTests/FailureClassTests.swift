import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// Every failure class, each against a positive control built the same way, so
/// that removing any one check makes its test fail.
@Suite struct FailureClassTests {
    let pki = Fixtures.pki

    @Test func validTokenFromTestPKIPasses() {
        let result = Fixtures.inspect(pki.sign(payloadJSON: TestPayloads.transaction()))
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.checks.allSatisfy { $0.passed })
        #expect(result.kind == .transaction)
    }

    @Test func tamperedPayloadFailsSignature() throws {
        let token = pki.sign(payloadJSON: TestPayloads.transaction())
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(TestPayloads.transaction(bundleId: "com.attacker.app").utf8))
        let result = Fixtures.inspect(parts.joined(separator: "."))
        #expect(result.status == .invalidSignature)
        #expect(result.failedCheck == .signature)
        // Everything else still holds: only the signature gives the tampering away.
        #expect(result.checks.filter { !$0.passed }.map(\.name) == [.signature])
    }

    /// A deferred verification is a pending check until the caller runs it, never passed
    /// before: resolved, the inspection is `inspect`'s; it must fail for a tampered token,
    /// and what `inspect` says is then the verdict.
    @Test func deferredSignatureIsLeftToTheCaller() throws {
        let token = pki.sign(payloadJSON: TestPayloads.transaction())
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(TestPayloads.transaction(bundleId: "com.attacker.app").utf8))
        let tampered = parts.joined(separator: ".")
        let verifier = Verifier(options: Fixtures.options())

        var good = verifier.inspectDeferringSignature(token, source: "good")
        let pending = try #require(good.inspection.checks.first { $0.name == .signature })
        #expect(pending.isPending && !pending.passed && !pending.failed)
        #expect(try #require(good.signature).verifies())
        #expect(good.inspection.status == .valid)
        #expect(good.inspection.checks != verifier.inspect(token, source: "good").checks)
        #expect(try #require(good.signature).resolve(&good.inspection))
        #expect(good.inspection.checks == verifier.inspect(token, source: "good").checks)
        #expect(good.inspection.reason == verifier.inspect(token, source: "good").reason)

        let bad = verifier.inspectDeferringSignature(tampered, source: "bad")
        #expect(bad.inspection.status == .valid, "as if the signature verified")
        #expect(try #require(bad.signature).verifies() == false)
        var resolved = bad.inspection
        #expect(try #require(bad.signature).resolve(&resolved) == false)
        #expect(resolved.checks.contains { $0.isPending }, "left pending, to be discarded")
        #expect(verifier.inspect(tampered, source: "bad").status == .invalidSignature)

        // Nothing to defer: undecodable, or an algorithm that is not ES256.
        #expect(verifier.inspectDeferringSignature("abc.def.ghi", source: "").signature == nil)
        #expect(
            verifier.inspectDeferringSignature(
                pki.sign(payloadJSON: TestPayloads.transaction(), alg: "none"), source: ""
            ).signature == nil)
    }

    @Test func flippedSignatureBitFails() {
        let token = pki.sign(payloadJSON: TestPayloads.transaction())
        var parts = token.split(separator: ".").map(String.init)
        var signature = try! Base64URL.decode(Array(parts[2].utf8))
        signature[10] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        let result = Fixtures.inspect(parts.joined(separator: "."))
        #expect(result.status == .invalidSignature)
        #expect(result.check(.signature)?.detail.contains("does not match") == true)
    }

    @Test func wrongKeyFailsSignature() {
        let header = pki.headerJSON()
        let token = TestPKI.compactJWS(headerJSON: header, payloadJSON: TestPayloads.transaction(), key: .p256())
        let result = Fixtures.inspect(token)
        #expect(result.status == .invalidSignature)
        #expect(result.failedCheck == .signature)
    }

    @Test func truncatedSignatureLengthIsNamed() {
        let token = pki.sign(payloadJSON: TestPayloads.transaction())
        let parts = token.split(separator: ".")
        let short = Base64URL.encode(Array(try! Base64URL.decode(Array(parts[2].utf8)).prefix(63)))
        let result = Fixtures.inspect("\(parts[0]).\(parts[1]).\(short)")
        #expect(result.status == .invalidSignature)
        #expect(result.check(.signature)?.detail == "an ES256 signature is 64 bytes (r||s), got 63")
    }

    @Test(arguments: ["none", "HS256", "RS256", "ES384", "es256"])
    func algOtherThanES256FailsBeforeTheChain(_ alg: String) {
        let token = pki.sign(payloadJSON: TestPayloads.transaction(), alg: alg)
        let result = Fixtures.inspect(token)
        #expect(result.status == .invalidSignature)
        #expect(result.checks.first?.name == .alg)
        #expect(result.failedCheck == .alg)
        #expect(result.check(.alg)?.detail.contains(alg) == true)
        #expect(result.check(.signature) == nil, "no ES256 check under another alg")
    }

    @Test func criticalHeaderExtensionsAreRefused() {
        let header = #"{"alg":"ES256","crit":["exp"],"x5c":["\#(pki.x5c[0])","\#(pki.x5c[1])","\#(pki.x5c[2])"]}"#
        let result = Fixtures.inspect(
            TestPKI.compactJWS(headerJSON: header, payloadJSON: TestPayloads.transaction(), key: pki.leaf.key))
        #expect(result.status == .invalidSignature)
        #expect(result.failedCheck == .crit)
        #expect(result.check(.signature)?.passed == true, "everything else holds")
    }

    @Test func appTransactionUsesSignedDateFirstLikeApple() {
        // Apple's verifier takes signedDate when present, receiptCreationDate otherwise.
        let payload = TestPayloads.appTransaction().replacingOccurrences(
            of: "{", with: #"{"signedDate":1780000000000,"#)
        let result = Fixtures.inspect(pki.sign(payloadJSON: payload))
        #expect(result.checkTime?.basis.description == "signedDate")
        #expect(result.status == .invalidChain, "signed after the leaf expired")
    }

    @Test func algFailureWinsOverAChainFailure() {
        // An attacker's chain and alg HS256: the status is the alg's (checked first).
        let result = Fixtures.inspect(Fixtures.attacker.sign(payloadJSON: TestPayloads.transaction(), alg: "HS256"))
        #expect(result.status == .invalidSignature)
        #expect(result.check(.chain)?.passed == false)
    }

    @Test func twoCertificateChainFails() {
        let token = pki.sign(payloadJSON: TestPayloads.transaction(), x5c: Array(pki.x5c.prefix(2)))
        let result = Fixtures.inspect(token)
        #expect(result.status == .invalidChain)
        #expect(result.failedCheck == .x5c)
        #expect(result.check(.x5c)?.detail.contains("x5c has 2 certificates") == true)
    }

    @Test(arguments: [0, 1, 4])
    func otherCertificateCountsFail(_ count: Int) {
        let x5c = Array(repeating: pki.x5c, count: 2).flatMap { $0 }.prefix(count)
        let result = Fixtures.inspect(pki.sign(payloadJSON: TestPayloads.transaction(), x5c: Array(x5c)))
        #expect(result.status == .invalidChain)
        #expect(result.failedCheck == .x5c)
    }

    @Test func missingX5CFails() {
        let token = TestPKI.compactJWS(
            headerJSON: #"{"alg":"ES256"}"#, payloadJSON: TestPayloads.transaction(), key: pki.leaf.key)
        let result = Fixtures.inspect(token)
        #expect(result.status == .invalidChain)
        #expect(result.check(.x5c)?.detail.hasPrefix("ES256 without x5c: signed with a key of its own") == true)
    }

    @Test func undecodableCertificateFails() {
        let result = Fixtures.inspect(
            pki.sign(payloadJSON: TestPayloads.transaction(), x5c: ["AAAA", pki.x5c[1], pki.x5c[2]]))
        #expect(result.status == .invalidChain)
        #expect(result.check(.x5c)?.detail.hasPrefix("x5c[0] is not a DER X.509 certificate") == true)
        let notBase64 = Fixtures.inspect(
            pki.sign(payloadJSON: TestPayloads.transaction(), x5c: ["!!", pki.x5c[1], pki.x5c[2]]))
        #expect(notBase64.check(.x5c)?.detail == "x5c[0] is not standard base64")
    }

    @Test func untrustedRootFails() {
        let result = Fixtures.inspect(Fixtures.attacker.sign(payloadJSON: TestPayloads.transaction()))
        #expect(result.status == .invalidChain)
        #expect(result.failedCheck == .chain)
        #expect(result.check(.chain)?.detail.contains("not among the trusted roots") == true)
        #expect(result.check(.signature)?.passed == true, "the attacker's own signature is fine; the chain is not")
    }

    @Test func x5cRootIsNeverTrusted() {
        // Swap x5c[2] for the attacker's root: the genuine leaf and intermediate still
        // chain to the configured root, so the verdict is unaffected either way...
        let genuine = pki.sign(
            payloadJSON: TestPayloads.transaction(), x5c: [pki.x5c[0], pki.x5c[1], Fixtures.attacker.root.base64])
        #expect(Fixtures.inspect(genuine).status == .valid)
        // ...and an attacker's chain whose own root sits in x5c[2] is refused.
        let forged = Fixtures.attacker.sign(payloadJSON: TestPayloads.transaction())
        #expect(Fixtures.inspect(forged).status == .invalidChain)
        // Even when the attacker reuses the trusted root's name.
        let impostor = AppleShapedChain(rootCN: AppleShapedChain.defaultRootCN)
        #expect(Fixtures.inspect(impostor.sign(payloadJSON: TestPayloads.transaction())).status == .invalidChain)
    }

    @Test func leafIssuedByTheRootItselfFailsThePath() {
        // A leaf the trusted root signed directly, with an unrelated intermediate in x5c[1]:
        // OpenSSL finds leaf -> root, which is not the x5c[0] -> x5c[1] -> root path Apple's chains have.
        let spec = CertificateSpec(
            commonName: "Direct Leaf", serial: 99, notBefore: AppleShapedChain.leafNotBefore,
            notAfter: AppleShapedChain.leafNotAfter, isCA: false, markerOIDs: [TestPKI.leafOID])
        let leaf = TestPKI.issue(spec, issuer: pki.root)
        let token = TestPKI.compactJWS(
            headerJSON: pki.headerJSON(x5c: [leaf.base64, pki.x5c[1], pki.x5c[2]]),
            payloadJSON: TestPayloads.transaction(), key: leaf.key)
        let result = Fixtures.inspect(token)
        #expect(result.status == .invalidChain)
        #expect(result.checks.filter { !$0.passed }.map(\.name) == [.chainPath])
    }

    @Test func leafWithoutOIDFails() {
        let chain = AppleShapedChain(root: pki.root, leafHasOID: false)
        let result = Fixtures.inspect(chain.sign(payloadJSON: TestPayloads.transaction()))
        #expect(result.status == .invalidChain)
        #expect(result.checks.filter { !$0.passed }.map(\.name) == [.leafOID])
        #expect(result.check(.leafOID)?.detail.contains("1.2.840.113635.100.6.11.1") == true)
    }

    @Test func intermediateWithoutOIDFails() {
        let chain = AppleShapedChain(root: pki.root, intermediateHasOID: false)
        let result = Fixtures.inspect(chain.sign(payloadJSON: TestPayloads.transaction()))
        #expect(result.status == .invalidChain)
        #expect(result.checks.filter { !$0.passed }.map(\.name) == [.intermediateOID])
    }

    @Test func expiredLeafFailsAtSignedDate() {
        // Leaf valid 2024-01-01 .. 2024-06-01; the token says it was signed 2025-01-01.
        let chain = AppleShapedChain(root: pki.root, leafNotAfter: Date(timeIntervalSince1970: 1_717_200_000))
        let result = Fixtures.inspect(chain.sign(payloadJSON: TestPayloads.transaction()))
        #expect(result.status == .invalidChain)
        #expect(result.failedCheck == .chain)
        #expect(result.check(.chain)?.detail.contains("certificate has expired") == true)
        #expect(result.check(.chain)?.detail.contains("at the leaf") == true)
        // Signed while the leaf was valid: fine.
        let early = chain.sign(payloadJSON: TestPayloads.transaction(signedDate: 1_709_251_200_000))  // 2024-03-01
        #expect(Fixtures.inspect(early).status == .valid)
    }

    @Test func leafNotYetValidFails() {
        // Signed 2023-11, before the leaf's validity.
        let result = Fixtures.inspect(pki.sign(payloadJSON: TestPayloads.transaction(signedDate: 1_700_000_000_000)))
        #expect(result.status == .invalidChain)
        #expect(result.check(.chain)?.detail.contains("not yet valid") == true)
    }

    @Test func atOverridesSigningTime() {
        let token = pki.sign(payloadJSON: TestPayloads.transaction())
        let later = Date(timeIntervalSince1970: 1_800_000_000)  // 2027, after the leaf expired
        let result = Fixtures.inspect(token) {
            $0.timePolicy = .fixed(later)
            $0.hints = MarkedHints()
        }
        #expect(result.status == .invalidChain)
        #expect(result.checkTime?.basis == .fixed(named: "[fixedTime]"))
        #expect(result.checkTime?.basis.description == "[fixedTime]")
        #expect(Fixtures.inspect(token) { $0.timePolicy = .fixed(later) }.checkTime?.basis.description == "fixed time")
        #expect(Fixtures.inspect(token) { $0.timePolicy = .now }.status == .valid)  // Fixtures.now is inside validity
    }

    @Test func missingSignedDateUsesNow() {
        let payload = #"{"transactionId":"1","bundleId":"com.example.jwsinspect"}"#
        let result = Fixtures.inspect(pki.sign(payloadJSON: payload))
        #expect(result.checkTime?.date == Fixtures.now)
        #expect(result.checkTime?.basis.description == "now (no signedDate in the payload)")
        #expect(result.checkTime?.basis.isNow == true)
        #expect(result.status == .valid)
    }

    @Test func appTransactionUsesReceiptCreationDate() {
        let expiredTime: Int64 = 1_780_000_000_000  // 2026-05, after the test leaf expired
        let result = Fixtures.inspect(
            pki.sign(payloadJSON: TestPayloads.appTransaction(receiptCreationDate: expiredTime)))
        #expect(result.kind == .appTransaction)
        #expect(result.checkTime?.basis.description == "receiptCreationDate")
        #expect(result.status == .invalidChain)
    }

    @Test func keyIdentifiersAreOptionalUnlessStrict() {
        let chain = AppleShapedChain(root: pki.root, keyIdentifiers: false)
        let token = chain.sign(payloadJSON: TestPayloads.transaction())
        let lenient = Fixtures.inspect(token)
        #expect(lenient.status == .valid)
        #expect(lenient.notes.contains { $0.contains("Missing Authority Key Identifier (X509_V_ERR 85)") })
        let strict = Fixtures.inspect(token) { $0.strictX509 = true }
        #expect(strict.status == .invalidChain)
        #expect(strict.failedCheck == .chain)
    }

    /// A chain built to the test PKI's pattern, with one certificate's keyUsage replaced.
    static func chain(intermediateKeyUsage: String? = nil, leafKeyUsage: String? = nil) -> String {
        let pki = Fixtures.pki
        let intermediate = TestPKI.issue(
            CertificateSpec(
                commonName: "Test WWDR", serial: 20, notBefore: AppleShapedChain.caNotBefore,
                notAfter: AppleShapedChain.caNotAfter, isCA: true, markerOIDs: [TestPKI.intermediateOID],
                keyUsage: intermediateKeyUsage),
            key: .p384(), issuer: pki.root)
        let leaf = TestPKI.issue(
            CertificateSpec(
                commonName: "Test Leaf", serial: 21, notBefore: AppleShapedChain.leafNotBefore,
                notAfter: AppleShapedChain.leafNotAfter, isCA: false, markerOIDs: [TestPKI.leafOID],
                keyUsage: leafKeyUsage),
            issuer: intermediate)
        return TestPKI.compactJWS(
            headerJSON: pki.headerJSON(x5c: [leaf.base64, intermediate.base64, pki.x5c[2]]),
            payloadJSON: TestPayloads.transaction(), key: leaf.key)
    }

    /// By default chains get RFC 5280 validation, as in Apple's Swift, Java and Node libraries; what
    /// OpenSSL's strict checks (Apple's Python library's default) would refuse is a note naming the
    /// check. `strictX509` (`--x509-strict`) makes it a failure of `chain`. A CA without keyUsage,
    /// and a leaf whose only key usage is signing certificates, are such chains.
    @Test(
        arguments: [
            (
                "", nil,
                "at the intermediate \"Test WWDR\": CA cert does not include key usage extension (X509_V_ERR 92)"
            ),
            (
                nil, "critical,keyCertSign",
                "at the leaf \"Test Leaf\": Key usage keyCertSign invalid for non-CA cert (X509_V_ERR 82)"
            ),
        ] as [(String?, String?, String)])
    func strictStructureChecksAreANoteUnlessAskedFor(
        _ intermediateUsage: String?, _ leafUsage: String?, _ expected: String
    ) {
        let token = Self.chain(intermediateKeyUsage: intermediateUsage, leafKeyUsage: leafUsage)
        let lenient = Fixtures.inspect(token)
        #expect(lenient.status == .valid)
        #expect(lenient.check(.chain)?.passed == true)
        let note = lenient.notes.first { $0.contains("X509_V_FLAG_X509_STRICT") } ?? ""
        #expect(note.contains(expected), "\(lenient.notes)")
        #expect(note.contains("Apple's Python library applies by default"))
        let strict = Fixtures.inspect(token) { $0.strictX509 = true }
        #expect(strict.status == .invalidChain)
        #expect(strict.failedCheck == .chain)
        #expect(strict.check(.chain)?.detail.contains(expected) == true, "\(strict.check(.chain)?.detail ?? "")")
        let usual = Fixtures.inspect(Self.chain())
        #expect(usual.status == .valid, "the same chain with the usual key usages")
        #expect(usual.notes.isEmpty, "\(usual.notes)")
    }

    @Test func noVerifySaysSoAndChecksNothing() {
        let forged = Fixtures.attacker.sign(payloadJSON: TestPayloads.transaction())
        let result = Fixtures.inspect(forged) { $0.verifySignatures = false }
        #expect(result.status == .unverified)
        #expect(result.checks.isEmpty)
        #expect(result.reason.hasPrefix("NOT VERIFIED"))
        #expect(result.chain.count == 3)
    }
}
