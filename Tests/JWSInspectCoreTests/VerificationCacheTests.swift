import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// A cache hit must never accept what a fresh check would refuse.
@Suite struct VerificationCacheTests {
    let pki = Fixtures.pki

    /// The same verifier (one cache) and a fresh verifier per token must agree on everything.
    func agree(_ tokens: [String], _ configure: (inout VerificationOptions) -> Void = { _ in }) -> [Inspection] {
        let shared = Verifier(options: Fixtures.options(configure))
        return tokens.map { token in
            let cached = shared.inspect(token, source: "t")
            let fresh = Verifier(options: Fixtures.options(configure)).inspect(token, source: "t")
            #expect(cached.status == fresh.status, "\(cached.reason) vs \(fresh.reason)")
            #expect(cached.checks == fresh.checks)
            #expect(cached.validNow?.valid == fresh.validNow?.valid)
            #expect(cached.validNow?.detail == fresh.validNow?.detail)
            #expect(cached.notes == fresh.notes)
            return cached
        }
    }

    @Test func sameChainOtherValidityTime() {
        // Leaf valid 2024-01-01 .. 2026-01-01: inside, then after it expired, then before it began, then inside again.
        let times: [Int64] = [1_735_689_600_000, 1_780_000_000_000, 1_700_000_000_000, 1_740_000_000_000]
        let tokens = times.map { pki.sign(payloadJSON: TestPayloads.transaction(signedDate: $0)) }
        let results = agree(tokens)
        #expect(results.map(\.status) == [.valid, .invalidChain, .invalidChain, .valid])
    }

    @Test func validityBoundariesAreValidatedAfresh() {
        // Exactly at the leaf's notAfter and one second past it.
        let end = Int64(AppleShapedChain.leafNotAfter.timeIntervalSince1970) * 1000
        let tokens = [TestPayloads.signedDate, end, end + 1000, end - 1000].map {
            pki.sign(payloadJSON: TestPayloads.transaction(signedDate: $0))
        }
        let results = agree(tokens)
        #expect(results[0].status == .valid)
        #expect(results[2].status == .invalidChain)
        #expect(results[3].status == .valid)
    }

    @Test func sameLeafOtherIntermediate() {
        // A second intermediate under an untrusted root, with the same name as the real one.
        let other = AppleShapedChain(rootCN: "Other Root")
        let genuine = pki.sign(payloadJSON: TestPayloads.transaction())
        let swapped = pki.sign(payloadJSON: TestPayloads.transaction(), x5c: [pki.x5c[0], other.x5c[1], pki.x5c[2]])
        let results = agree([genuine, swapped, genuine])
        #expect(results.map(\.status) == [.valid, .invalidChain, .valid])
    }

    @Test func sameIntermediateOtherLeafKeepsEachLeafsOwnChecks() {
        let noOID = AppleShapedChain(root: pki.root, leafHasOID: false)
        // Reuse the genuine intermediate for the OID-less leaf's chain? It has its own; both share the root.
        let tokens = [
            pki.sign(payloadJSON: TestPayloads.transaction()), noOID.sign(payloadJSON: TestPayloads.transaction()),
            pki.sign(payloadJSON: TestPayloads.transaction()),
        ]
        #expect(agree(tokens).map(\.status) == [.valid, .invalidChain, .valid])
    }

    /// What OpenSSL's strict checks say is kept with the validated path: every token of the
    /// window carries the note a fresh check gives (or, asked for, the same failure), without a
    /// new validation, and the words are the ones the cache holds.
    @Test(arguments: [false, true])
    func strictChecksAreKeptWithTheValidatedPath(strict: Bool) throws {
        let chain = AppleShapedChain(root: pki.root, keyIdentifiers: false)
        let times: [Int64] = [1_735_689_600_000, 1_740_000_000_000, 1_780_000_000_000, 1_745_000_000_000]
        let tokens = times.map { chain.sign(payloadJSON: TestPayloads.transaction(signedDate: $0)) }
        let results = agree(tokens) { $0.strictX509 = strict }
        let expected: [Status] =
            strict
            ? [.invalidChain, .invalidChain, .invalidChain, .invalidChain] : [.valid, .valid, .invalidChain, .valid]
        #expect(results.map(\.status) == expected)
        let shared = Verifier(options: Fixtures.options { $0.strictX509 = strict })
        _ = shared.inspect(tokens[0], source: "a")
        // The cache's own certificate objects (it keys chains by them).
        let (leaf, intermediate) = (
            try shared.cache.certificate(der: chain.leaf.der), try shared.cache.certificate(der: chain.intermediate.der)
        )
        let entry = shared.cache.chain(leaf: leaf, intermediate: intermediate) { _, _ in [] }
        let words = try #require(entry.validated?.strictFindings)
        #expect(words.contains("Missing Subject Key Identifier (X509_V_ERR 86)"))
        let second = shared.inspect(tokens[1], source: "b")
        if strict {
            #expect(second.check(.chain)?.detail == ChainPolicy.strictRefusal(words))
            #expect(second.notes.allSatisfy { !$0.contains("X509_V_FLAG_X509_STRICT") })
        } else {
            #expect(second.notes.filter { $0.contains("X509_V_FLAG_X509_STRICT") } == [ChainPolicy.strictNote(words)])
        }
    }

    /// A chain valid when its tokens were signed and not now (an old log): whether it is valid
    /// now is validated once for the run's now and kept with the pair, with the same words a
    /// fresh check gives; another now is validated afresh.
    @Test func invalidNowIsValidatedOncePerNow() throws {
        let later = Date(timeIntervalSince1970: 1_800_000_000)  // 2027, after the test leaf expired
        let tokens = (0..<3).map { pki.sign(payloadJSON: TestPayloads.transaction(transactionId: "\($0)")) }
        let results = agree(tokens) { $0.now = later }
        #expect(results.allSatisfy { $0.status == .valid && $0.validNow?.valid == false })
        #expect(results[0].validNow?.detail.contains("certificate has expired") == true)
        let shared = Verifier(options: Fixtures.options { $0.now = later })
        _ = shared.inspect(tokens[0], source: "a")
        let (leaf, intermediate) = (
            try shared.cache.certificate(der: pki.leaf.der), try shared.cache.certificate(der: pki.intermediate.der)
        )
        let entry = shared.cache.chain(leaf: leaf, intermediate: intermediate) { _, _ in [] }
        #expect(entry.invalidValidation(at: later)?.error == .certHasExpired)
        #expect(entry.invalidValidation(at: Fixtures.now) == nil)
    }

    @Test func validNowIsNotTakenFromTheCacheOutsideTheWindow() {
        // Fixtures.now is inside the leaf's validity; at 2027 it is not.
        let token = pki.sign(payloadJSON: TestPayloads.transaction())
        let shared = Verifier(options: Fixtures.options())
        #expect(shared.inspect(token, source: "t").validNow?.valid == true)
        let later = Verifier(options: Fixtures.options { $0.now = Date(timeIntervalSince1970: 1_800_000_000) })
        #expect(later.inspect(token, source: "t").validNow?.valid == false)
    }

    @Test func headersSharedByTokensAreDecodedOnce() throws {
        let shared = Verifier(options: Fixtures.options())
        let first = shared.inspect(pki.sign(payloadJSON: TestPayloads.transaction()), source: "a")
        let second = shared.inspect(pki.sign(payloadJSON: TestPayloads.renewalInfo()), source: "b")
        #expect(first.status == .valid && second.status == .valid)
        // The parsed certificates are the very same objects: parsed once.
        let segment = String(first.jws!.token.prefix { $0 != "." })
        let entry = try #require(shared.cache.header(segment))
        #expect(entry.chain.certificates.count == 3)
        let again = try #require(shared.cache.header(segment))
        #expect(zip(entry.chain.certificates, again.chain.certificates).allSatisfy { $0 === $1 })
    }

    @Test func concurrentUseAgreesWithSequentialUse() async {
        let times: [Int64] = [1_735_689_600_000, 1_780_000_000_000, 1_700_000_000_000]
        let tokens = (0..<60).map { pki.sign(payloadJSON: TestPayloads.transaction(signedDate: times[$0 % 3])) }
        let shared = Verifier(options: Fixtures.options())
        let statuses = await withTaskGroup(of: (Int, Status).self) { group in
            for (index, token) in tokens.enumerated() {
                group.addTask { (index, shared.inspect(token, source: "t").status) }
            }
            var result = [Status](repeating: .malformed, count: tokens.count)
            for await (index, status) in group { result[index] = status }
            return result
        }
        #expect(statuses == tokens.indices.map { [.valid, .invalidChain, .invalidChain][$0 % 3] })
    }
}

/// The cache is bounded by bytes as well as entries: a stream of distinct headers (each up to
/// the 1 MiB token limit) once cost 3.5 MB a header, 14 GB at the entry cap.
@Suite struct VerificationCacheBoundTests {
    let pki = Fixtures.pki

    /// A token whose header carries `padding` bytes of an extra member, distinct per `index`.
    func token(index: Int, padding: Int) -> String {
        let header =
            #"{"alg":"ES256","x5c":["\#(pki.x5c.joined(separator: #"",""#))"],"pad":"\#(index)\#(String(repeating: "x", count: padding))"}"#
        return TestPKI.compactJWS(headerJSON: header, payloadJSON: TestPayloads.transaction(), key: pki.leaf.key)
    }

    @Test func largeHeadersAreNeverKept() {
        let verifier = Verifier(options: Fixtures.options())
        for index in 0..<20 {
            #expect(verifier.inspect(token(index: index, padding: 100_000), source: "t").status == .valid)
        }
        #expect(verifier.cache.footprint.headers == 0)
        #expect(verifier.cache.footprint.headerBytes == 0)
    }

    @Test func keptHeadersStayWithinTheByteBudget() {
        let verifier = Verifier(options: Fixtures.options())
        var largest = 0
        for index in 0..<400 {
            _ = verifier.inspect(token(index: index, padding: 40_000), source: "t")
            largest = max(largest, verifier.cache.footprint.headerBytes)
        }
        #expect(largest > VerificationCache.byteBudget / 2, "the budget is used")
        #expect(largest <= VerificationCache.byteBudget)
        #expect(verifier.cache.footprint.headers < 400)
    }

    @Test func realHeadersAreKeptAndShared() {
        let verifier = Verifier(options: Fixtures.options())
        for index in 0..<50 {
            _ = verifier.inspect(
                pki.sign(payloadJSON: TestPayloads.transaction(transactionId: String(index))), source: "t")
        }
        let footprint = verifier.cache.footprint
        #expect(footprint.headers == 1)
        // Leaf and intermediate: x5c[2] holds the trusted root's own bytes, which is that root,
        // parsed once when the trust store was made, never a third parse.
        #expect(footprint.certificates == 2)
        #expect(footprint.chains == 1)
    }

    /// Certificates count against the budget too, and chains keyed by them go with them; with
    /// a small budget, a stream of distinct leaves never holds more than it allows.
    @Test func certificatesStayWithinTheByteBudget() {
        let cache = VerificationCache(byteBudget: 4096)
        let verifier = Verifier(
            options: Fixtures.options(), cache: cache, payloadKeys: PayloadKeys(for: Fixtures.options()))
        var largest = 0
        for index in 0..<12 {
            let leaf = TestPKI.issue(
                CertificateSpec(
                    commonName: "Leaf \(index)", serial: UInt64(100 + index),
                    notBefore: AppleShapedChain.leafNotBefore, notAfter: AppleShapedChain.leafNotAfter,
                    isCA: false, markerOIDs: [TestPKI.leafOID]), issuer: pki.intermediate)
            let token = TestPKI.compactJWS(
                headerJSON: pki.headerJSON(x5c: [leaf.base64, pki.x5c[1], pki.x5c[2]]),
                payloadJSON: TestPayloads.transaction(), key: leaf.key)
            #expect(verifier.inspect(token, source: "t").status == .valid)
            largest = max(largest, cache.footprint.certificateBytes)
            #expect(cache.footprint.chains <= cache.footprint.certificates)
        }
        #expect(largest > 2048)
        #expect(largest <= 4096)
    }

    /// A certificate over the per-entry bound is parsed for each token but never kept, nor
    /// kept alive through a chain entry.
    @Test func certificatesOverTheEntryBoundAreNeverKept() {
        let cache = VerificationCache(largestEntry: 256)
        let verifier = Verifier(
            options: Fixtures.options(), cache: cache, payloadKeys: PayloadKeys(for: Fixtures.options()))
        #expect(verifier.inspect(pki.sign(payloadJSON: TestPayloads.transaction()), source: "t").status == .valid)
        #expect(cache.footprint.certificates == 0)
        #expect(cache.footprint.chains == 0)
    }
}
