import Foundation
import TestPKI
import TestSupport
import Testing

@testable import JWSInspectCore

/// `--check-revocation` against real `openssl ocsp` responders on loopback (`OCSPTestPKI`): good,
/// revoked (leaf and intermediate), unknown, signed by a stranger or by an undelegated
/// certificate, stale, a responder that hangs and one that is down, one request per certificate
/// however many tokens, and answers kept in a store.
@Suite(.timeLimit(.minutes(10)), .ocspResponders) struct OCSPTests {
    static var pki: OCSPTestPKI { OCSPResponders.pki }

    static func inspect(
        _ chain: OCSPTestPKI.Case, requester: OCSPRequester = OCSPRequester(timeout: 2), now: Date = Date(),
        _ configure: (inout VerificationOptions) -> Void = { _ in }
    ) -> Inspection {
        var options = VerificationOptions(trustStore: TrustStore(roots: [try! Certificate(derBytes: pki.root.der)]))
        options.now = now
        options.revocation = requester
        configure(&options)
        return Verifier(options: options).inspect(pki.token(chain), source: "test")
    }

    @Test func aGoodPathPassesNamingBothResponders() {
        let requester = OCSPRequester(timeout: 2)
        let result = Self.inspect(.good, requester: requester)
        #expect(result.status == .valid, "\(result.reason)")
        let detail = result.check(.revocation)?.detail ?? ""
        #expect(
            detail.hasPrefix("not revoked: the leaf \"jwsinspect OCSP test leaf 3\" (\(Self.pki.leafResponder.url), "))
        #expect(
            detail.contains(
                "the intermediate \"jwsinspect OCSP test intermediate\" (\(Self.pki.intermediateResponder.url), thisUpdate "
            ))
        #expect(result.reason.contains("certificates checked at signedDate"))
        #expect(result.reason.hasSuffix("; revocation checked now)"), "\(result.reason)")
        #expect(result.isAuthentic)
        #expect(requester.requestsSent == 2)
    }

    @Test func aRevokedLeafFailsTheChainSayingWhenAndWhy() {
        let result = Self.inspect(.revokedLeaf)
        #expect(result.status == .invalidChain)
        let revoked = ISO8601.string(Self.pki.revocationDate)
        #expect(
            result.reason.hasPrefix(
                "revocation: the leaf \"jwsinspect OCSP test leaf 4\" was revoked \(revoked) (keyCompromise), says "
                    + "\(Self.pki.leafResponder.url), asked now ("), "\(result.reason)")
        #expect(!result.isAuthentic)
    }

    @Test func aRevokedIntermediateFailsTheChain() {
        let result = Self.inspect(.revokedIntermediate)
        #expect(result.status == .invalidChain)
        #expect(
            result.reason.hasPrefix(
                "revocation: the intermediate \"jwsinspect OCSP test revoked intermediate\" was revoked "
                    + "\(ISO8601.string(Self.pki.revocationDate)) (cACompromise)"), "\(result.reason)")
        #expect(result.notes.contains { $0.contains("leaf 6\" names no OCSP responder") })
    }

    /// Every answer that cannot be had is retryable (exit 75), never valid.
    @Test(arguments: [
        (OCSPTestPKI.Case.unknown, "the responder does not know the certificate (status unknown)"),
        (.wrongKey, "the answer is not signed by the issuer or a responder it delegated"),
        (.undelegated, "the answer is not signed by the issuer or a responder it delegated"),
        (.noNextUpdate, "the answer has no nextUpdate, so nothing bounds how long it holds"),
        (.hanging, "no answer within 1 s"),
        (.down, "the connection was refused by 127.0.0.1:"),
    ])
    func anAnswerThatCannotBeHadIsRetryable(chain: OCSPTestPKI.Case, why: String) {
        let started = Date()
        let result = Self.inspect(chain, requester: OCSPRequester(timeout: 1))
        #expect(result.status == .revocationUnavailable, "\(result.reason)")
        #expect(result.reason.hasPrefix("revocation: could not check revocation of the leaf "), "\(result.reason)")
        #expect(result.reason.contains(why), "\(result.reason)")
        #expect(result.reason.hasSuffix("; try again"))
        #expect(!result.isAuthentic)
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// Asked two days from now, the responder's answer (nextUpdate a day after thisUpdate) is stale.
    /// A responder that hangs up: the request meets a reset connection, many times over.
    @Test func aResponderThatHangsUpIsRetryableAndEndsNothing() {
        for _ in 0..<20 {
            let result = Self.inspect(.hangingUp, requester: OCSPRequester(timeout: 2))
            #expect(result.status == .revocationUnavailable, "\(result.reason)")
        }
    }

    @Test func aStaleAnswerIsRetryable() {
        let result = Self.inspect(.good, now: Date().addingTimeInterval(2 * 86_400))
        #expect(result.status == .revocationUnavailable)
        #expect(result.reason.contains("the answer is stale (nextUpdate "), "\(result.reason)")
    }

    /// Asked an hour ago, or two minutes ago, the answer (thisUpdate now) is from the future:
    /// beyond the 60 seconds of skew Apple's libraries allow (issue 48: it was five minutes).
    @Test(arguments: [3_600.0, 120.0])
    func anAnswerFromTheFutureIsRetryable(secondsAgo: Double) {
        let result = Self.inspect(.good, now: Date().addingTimeInterval(-secondsAgo))
        #expect(result.status == .revocationUnavailable)
        #expect(result.reason.contains("the answer is from the future"), "\(result.reason)")
    }

    @Test func certificatesWithoutAResponderAreNotedUnlessACheckIsRequired() {
        let noted = Self.inspect(.noResponder)
        // The leaf names none; its intermediate does, and is asked.
        #expect(noted.status == .valid, "\(noted.reason)")
        #expect(
            noted.notes.contains { $0.contains("leaf 12\" names no OCSP responder: its revocation was not checked") })
        let required = Self.inspect(.noResponder) { $0.requireRevocationCheck = true }
        #expect(required.status == .invalidChain)
        #expect(
            required.reason
                == "revocation: the leaf \"jwsinspect OCSP test leaf 12\" names no OCSP responder, and a revocation "
                + "check is required")
    }

    /// One request per distinct certificate per run, however many tokens and threads.
    @Test(arguments: [1, 2])
    func aBatchAsksOncePerCertificate(jobs: Int) {
        let requester = OCSPRequester(timeout: 2)
        var options = VerificationOptions(
            trustStore: TrustStore(roots: [try! Certificate(derBytes: Self.pki.root.der)]))
        options.revocation = requester
        let engine = BatchEngine(verifier: Verifier(options: options), jobs: jobs)
        let work = (0..<200).map {
            BatchEngine.Work.item(.token(source: "t", token: Self.pki.token(.good, transactionId: String($0))))
        }
        var statuses: [Status] = []
        _ = engine.run(work, outcome: { $0.status }) { statuses.append($0) }
        #expect(statuses == Array(repeating: .valid, count: 200))
        #expect(requester.requestsSent == 2)
    }

    final class MemoryStore: RevocationResponseStore {
        let files = Locked<[String: [UInt8]]>([:])
        func load(_ key: String) -> [UInt8]? { files.withLock { $0[key] } }
        func save(_ key: String, _ response: [UInt8]) { files.withLock { $0[key] = response } }
    }

    /// Kept answers are verified again when read: a spoiled one is asked for anew.
    @Test func aStoreKeepsSignedAnswersAndNothingElse() {
        let store = MemoryStore()
        #expect(Self.inspect(.good, requester: OCSPRequester(timeout: 2, store: store)).status == .valid)
        #expect(store.files.withLock { $0.count } == 2)
        let second = OCSPRequester(timeout: 2, store: store)
        let again = Self.inspect(.good, requester: second)
        #expect(again.status == .valid)
        #expect(second.requestsSent == 0)
        #expect(again.check(.revocation)?.detail.contains(", kept in the cache, thisUpdate ") == true)
        // Swap the two answers: each is signed, but about the other certificate, and is asked for again.
        store.files.withLock { files in
            let keys = Array(files.keys)
            (files[keys[0]], files[keys[1]]) = (files[keys[1]], files[keys[0]])
        }
        let third = OCSPRequester(timeout: 2, store: store)
        #expect(Self.inspect(.good, requester: third).status == .valid)
        #expect(third.requestsSent == 2)
        // Answers that are not signed are never kept.
        let unsigned = MemoryStore()
        _ = Self.inspect(.wrongKey, requester: OCSPRequester(timeout: 2, store: unsigned))
        #expect(unsigned.files.withLock { $0.isEmpty })
    }

    /// Receipts' chains are asked about as JWS chains are, by the same policy.
    @Test func aReceiptsChainIsAskedAboutToo() throws {
        var options = VerificationOptions(trustStore: TrustStore(roots: [try Certificate(derBytes: Self.pki.root.der)]))
        options.revocation = OCSPRequester(timeout: 2)
        let verifier = Verifier(options: options)
        let good = verifier.inspectReceipt(Self.pki.receipt(Self.pki.goodReceiptChain), source: "r")
        #expect(good.status == .valid, "\(good.reason)")
        #expect(good.check(.revocation)?.passed == true)
        #expect(good.reason.hasSuffix("; revocation checked now)"), "\(good.reason)")
        let revoked = verifier.inspectReceipt(Self.pki.receipt(Self.pki.revokedReceiptChain), source: "r")
        #expect(revoked.status == .invalidChain)
        #expect(
            revoked.reason.hasPrefix(
                "revocation: the leaf \"jwsinspect OCSP test receipt leaf 22\" was revoked "
                    + "\(ISO8601.string(Self.pki.revocationDate)) (superseded)"), "\(revoked.reason)")
    }

    /// An answer about another certificate, though signed by the right responder, is refused.
    @Test func anAnswerAboutAnotherCertificateIsRefused() throws {
        let good = try #require(Self.pki.chains[.good])
        let revoked = try #require(Self.pki.chains[.revokedLeaf])
        let certificate = try Certificate(derBytes: good.leaf.der)
        let other = try Certificate(derBytes: revoked.leaf.der)
        let issuer = try Certificate(derBytes: good.intermediate.der)
        let request = try #require(OCSP.request(for: certificate, issuedBy: issuer))
        let bytes = try OCSP.post(request.der, to: Self.pki.leafResponder.url, timeout: 2).get()
        #expect(
            OCSP.verify(response: bytes, certificate: certificate, issuer: issuer, now: Date()).map(\.status)
                == .success(.good))
        #expect(
            OCSP.verify(response: bytes, certificate: other, issuer: issuer, now: Date())
                == .failure(.unusable("the answer is about another certificate")))
        #expect(
            OCSP.verify(response: Array(bytes.dropLast()), certificate: certificate, issuer: issuer, now: Date())
                == .failure(.unusable("the answer is not a DER OCSP response")))
    }
}
