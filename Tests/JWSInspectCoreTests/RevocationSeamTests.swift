import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// The seam online checks plug into (issue 25): a `RevocationRequester` in the options, asked
/// for every certificate below the trusted root of a validated path, JWS and receipts alike, by
/// the one `revocation` policy, which is time-sensitive and fails closed. The requester here
/// answers from a table; issue 28's OCSP client is tested against a real `openssl ocsp`.
@Suite struct RevocationSeamTests {
    /// Answers by the asked certificate's common name, and records every question
    /// ("leaf CN by issuer CN").
    final class TableRequester: RevocationRequester {
        let answers: [String: RevocationAnswer]
        let asked = Locked<[String]>([])

        init(_ answers: [String: RevocationAnswer]) { self.answers = answers }

        func status(of certificate: Certificate, issuedBy issuer: Certificate, now: Date) -> RevocationAnswer {
            let name = certificate.commonName ?? "?"
            asked.withLock { $0.append("\(name) by \(issuer.commonName ?? "?")") }
            return answers[name] ?? .unavailable(why: "no answer for \(name)")
        }
    }

    static let leaf = AppleShapedChain.leafCN
    static let intermediate = AppleShapedChain.intermediateCN
    static let thisUpdate = Fixtures.now.addingTimeInterval(-3_600)
    static let good = RevocationAnswer.good(responder: "http://ocsp.test/", thisUpdate: thisUpdate)

    static func inspect(_ token: String, _ requester: TableRequester) -> Inspection {
        Fixtures.inspect(token) { $0.revocation = requester }
    }

    static let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())

    @Test func withoutARequesterNothingIsAsked() {
        let result = Fixtures.inspect(Self.token)
        #expect(result.status == .valid)
        #expect(result.check(.revocation) == nil)
        #expect(!result.reason.contains("revocation"))
    }

    @Test func everyCertificateBelowTheRootIsAskedByItsIssuerAndTheVerdictSaysWhen() {
        let requester = TableRequester([Self.leaf: Self.good, Self.intermediate: Self.good])
        let result = Self.inspect(Self.token, requester)
        #expect(result.status == .valid, "\(result.reason)")
        #expect(
            requester.asked.withLock { $0 }
                == [
                    "\(Self.leaf) by \(Self.intermediate)", "\(Self.intermediate) by \(AppleShapedChain.defaultRootCN)",
                ])
        let check = result.check(.revocation)
        #expect(check?.passed == true)
        #expect(
            check?.detail.hasPrefix("not revoked: the leaf \"\(Self.leaf)\" (http://ocsp.test/, thisUpdate ") == true)
        #expect(check?.detail.hasSuffix(", asked now (2025-06-01T00:00:00.000Z)") == true)
        // Revocation is decided now, the chain at the signing time: the verdict says both.
        #expect(result.reason.hasSuffix("; revocation checked now)"), "\(result.reason)")
        #expect(result.reason.contains("certificates checked at signedDate"))
    }

    @Test(arguments: [leaf, intermediate])
    func aRevokedCertificateFailsTheChain(revoked: String) {
        let date = Fixtures.now.addingTimeInterval(-86_400)
        var answers = [Self.leaf: Self.good, Self.intermediate: Self.good]
        answers[revoked] = .revoked(responder: "http://ocsp.test/", date: date, reason: "keyCompromise")
        let result = Self.inspect(Self.token, TableRequester(answers))
        #expect(result.status == .invalidChain)
        #expect(result.failedCheck == .revocation)
        let role = revoked == Self.leaf ? "leaf" : "intermediate"
        #expect(
            result.reason
                == "revocation: the \(role) \"\(revoked)\" was revoked 2025-05-31T00:00:00.000Z (keyCompromise), "
                + "says http://ocsp.test/, asked now (2025-06-01T00:00:00.000Z)")
    }

    /// An answer that cannot be had is never taken as good.
    @Test func anUnavailableAnswerFailsClosed() {
        let requester = TableRequester([Self.leaf: .unavailable(why: "the responder timed out after 10 s")])
        let result = Self.inspect(Self.token, requester)
        #expect(result.status == .revocationUnavailable)
        #expect(!result.isAuthentic)
        #expect(
            result.reason
                == "revocation: could not check revocation of the leaf \"\(Self.leaf)\": "
                + "the responder timed out after 10 s; try again")
        // Nothing past the first failure is asked.
        #expect(requester.asked.withLock { $0.count } == 1)
    }

    @Test func certificatesWithoutAResponderAreNotedNotFailed() {
        let result = Self.inspect(
            Self.token, TableRequester([Self.leaf: .noResponder, Self.intermediate: .noResponder]))
        #expect(result.status == .valid)
        #expect(result.check(.revocation) == nil)
        #expect(
            result.notes.contains("the leaf \"\(Self.leaf)\" names no OCSP responder: its revocation was not checked"))
        #expect(!result.reason.contains("revocation checked now"))
    }

    /// A token whose signature or chain fails is not worth a request: nothing leaves the machine for it.
    @Test func aFailingTokenIsNeverAskedAbout() {
        let requester = TableRequester([Self.leaf: Self.good, Self.intermediate: Self.good])
        let tampered = NestedTokenTests.tamper(Self.token, payload: TestPayloads.transaction(transactionId: "9"))
        #expect(Self.inspect(tampered, requester).status == .invalidSignature)
        let untrusted = Fixtures.attacker.sign(payloadJSON: TestPayloads.transaction())
        #expect(Self.inspect(untrusted, requester).status == .invalidChain)
        #expect(requester.asked.withLock { $0 }.isEmpty)
    }

    /// Time-sensitive: every token is asked about, in a batch too (the verification cache keeps
    /// validated windows, never an answer); keeping answers is the requester's business.
    @Test(arguments: [1, 2])
    func aBatchAsksForEveryToken(jobs: Int) {
        let requester = TableRequester([Self.leaf: Self.good, Self.intermediate: Self.good])
        let tokens = (0..<40).map {
            Fixtures.pki.sign(payloadJSON: TestPayloads.transaction(transactionId: String($0)))
        }
        let engine = BatchEngine(
            verifier: Verifier(options: Fixtures.options { $0.revocation = requester }), jobs: jobs)
        var statuses: [Status] = []
        let work = tokens.map { BatchEngine.Work.item(.token(source: "t", token: $0)) }
        _ = engine.run(work, outcome: { $0.status }) { statuses.append($0) }
        #expect(statuses == Array(repeating: .valid, count: 40))
        #expect(requester.asked.withLock { $0.count } == 80)
        #expect(RevocationPolicy.isTimeSensitive && Check.Name.revocation.isTimeSensitive)
        #expect(!Check.Name.chain.isTimeSensitive)
    }

    /// Receipts get the same check from the same policy.
    @Test func aReceiptsChainIsAskedAboutToo() throws {
        let chain = ReceiptExpectationTests.chain
        let receipt = chain.sign(ReceiptBuilder(inApp: []).der())
        let names = try [chain.leaf.der, chain.intermediate.der].map { try Certificate(derBytes: $0).commonName ?? "?" }
        let good = TableRequester([names[0]: Self.good, names[1]: Self.good])
        let valid = try ReceiptExpectationTests.inspect(receipt) { $0.revocation = good }
        #expect(valid.status == .valid, "\(valid.reason)")
        #expect(valid.check(.revocation)?.passed == true)
        #expect(valid.reason.hasSuffix("; revocation checked now)"))
        #expect(good.asked.withLock { $0.count } == 2)
        let revoked = TableRequester([
            names[0]: .revoked(responder: "http://ocsp.test/", date: Fixtures.now, reason: nil), names[1]: Self.good,
        ])
        let refused = try ReceiptExpectationTests.inspect(receipt) { $0.revocation = revoked }
        #expect(refused.status == .invalidChain)
        #expect(refused.failedCheck == .revocation)
    }

    @Test func theRevocationPolicyIsAmongEveryPolicy() {
        #expect(Policies.all.contains { $0.name == .revocation })
        #expect(!Policies.make(Fixtures.options()).chosen.contains { $0.name == .revocation })
    }
}
