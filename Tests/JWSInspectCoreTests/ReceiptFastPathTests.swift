import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// A run reads a receipt's container without parsing its certificates when it has seen the set
/// before (`CMSSignedData.init(bytes:certificateSets:)`), validates each set once per window of
/// time (`ReceiptChain.Remembered`) and summarises it once: every receipt must read exactly as
/// it does read alone, and fail with the same words.
@Suite struct ReceiptFastPathTests {
    static let files = (ReceiptTests.appStore + ReceiptTests.xcode).map(\.file)

    /// Everything a container exposes, for comparing two readings.
    struct Reading: Equatable, CustomStringConvertible {
        let content: [UInt8]
        let certificates: [[UInt8]]
        let signer: [UInt8]
        let digestAlgorithm: String
        let signatureAlgorithm: String
        let signatureVerifies: Bool
        let refused: [String]

        init(_ container: CMSSignedData) {
            content = container.content
            certificates = container.certificates.map(\.derBytes)
            signer = container.signerCertificate.derBytes
            digestAlgorithm = container.digestAlgorithm
            signatureAlgorithm = container.signatureAlgorithm
            signatureVerifies = container.signatureVerifies
            refused = container.digests(refusedBy: ReceiptChain.algorithmFloor)
        }

        /// Short enough to read in a failure (the bytes by digest).
        var description: String {
            let certificates = certificates.map { Digest.sha256($0).hexString().prefix(8) }
            return
                "content \(Digest.sha256(content).hexString().prefix(8)), certificates \(certificates), "
                + "\(digestAlgorithm) with \(signatureAlgorithm), verifies: \(signatureVerifies), refused \(refused)"
        }
    }

    enum Outcome: Equatable {
        case read(Reading)
        case failed(String)
    }

    /// The reading of `bytes`, or the error's words.
    static func read(_ bytes: [UInt8], through store: (any CertificateSetStore)?) -> Outcome {
        do {
            return .read(Reading(try CMSSignedData(bytes: bytes, certificateSets: store)))
        } catch {
            return .failed(error.description)
        }
    }

    @Test(arguments: files)
    func aRealReceiptReadsTheSameThroughACertificateSetStore(_ file: String) throws {
        let bytes = try ReceiptTests.receipt(file)
        let cache = VerificationCache()
        let alone = try CMSSignedData(bytes: bytes)
        let first = try CMSSignedData(bytes: bytes, certificateSets: cache)
        let second = try CMSSignedData(bytes: bytes, certificateSets: cache)
        #expect(Reading(first) == Reading(alone))
        #expect(Reading(second) == Reading(alone))
        #expect(first.signatureVerifies)
        // The set was read without the container's own parse, kept, and shared.
        #expect(cache.certificateSetFootprint.sets == 1)
        #expect(zip(first.certificates, second.certificates).allSatisfy { $0 === $1 })
        #expect(first.signerCertificate === second.signerCertificate)
    }

    /// Containers spoiled in each part fail (or verify) the same way through a store as alone,
    /// with the same words: the fast way steps aside for anything it does not read whole.
    @Test func spoiledContainersFailTheSameThroughAStore() throws {
        let bytes = try ReceiptTests.receipt("36-prod-getpure-2024-g5.der")
        let container = try CMSSignedData(bytes: bytes)
        let content = try #require(bytes.firstRange(of: container.content))
        let leaf = try #require(bytes.firstRange(of: container.signerCertificate.derBytes))
        var variants: [(String, [UInt8])] = [
            ("trailing bytes", bytes + [0x00, 0x01]),
            ("truncated", Array(bytes.dropLast(10))),
            ("one byte", [0x30]),
            ("not CMS", Array("not a receipt at all".utf8)),
        ]
        var changed = bytes
        changed[content.lowerBound + 100] ^= 0x01
        variants.append(("a content byte", changed))
        changed = bytes
        changed[changed.count - 1] ^= 0x01
        variants.append(("a signature byte", changed))
        // Inside the leaf's signature (its last bytes): still a certificate, another one.
        changed = bytes
        changed[leaf.upperBound - 1] ^= 0x01
        variants.append(("a leaf signature byte", changed))
        // The leaf's first length byte: no longer a certificate.
        changed = bytes
        changed[leaf.lowerBound + 1] ^= 0x7f
        variants.append(("a leaf length byte", changed))
        for (what, variant) in variants {
            let alone = Self.read(variant, through: nil)
            let cache = VerificationCache()
            // Once with the genuine set known, once on first sight.
            _ = Self.read(bytes, through: cache)
            #expect(Self.read(variant, through: cache) == alone, "\(what)")
            #expect(Self.read(variant, through: VerificationCache()) == alone, "\(what)")
        }
        // The signature check still bites through the store.
        changed = bytes
        changed[changed.count - 1] ^= 0x01
        #expect(try CMSSignedData(bytes: changed, certificateSets: VerificationCache()).signatureVerifies == false)
    }

    @Test func mintedReceiptsOfEveryShapeReadTheSameThroughAStore() throws {
        let chain = TestReceiptChain()
        for encoding in ReceiptMinter.Encoding.allCases {
            for signed in [false, true] {
                let receipt = ReceiptMinter.sign(
                    content: ReceiptBuilder().der(), signer: chain.leaf,
                    certificates: [chain.intermediate, chain.root],
                    encoding: encoding, signedAttributes: signed)
                let cache = VerificationCache()
                #expect(Self.read(receipt, through: cache) == Self.read(receipt, through: nil))
                #expect(cache.certificateSetFootprint.sets == 1, "\(encoding) signed attributes: \(signed)")
            }
        }
    }

    @Test func certificateSetsAreBoundedByBytes() throws {
        let bytes = try ReceiptTests.receipt("38-sandbox-weeka-2025-g5.der")
        let set = try CMSSignedData(bytes: bytes).certificates.reduce(0) { $0 + $1.derBytes.count }
        let tooSmall = VerificationCache(byteBudget: 1 << 20, largestEntry: set - 1)
        _ = try CMSSignedData(bytes: bytes, certificateSets: tooSmall)
        #expect(tooSmall.certificateSetFootprint.sets == 0)
        // Room for one set: distinct sets replace each other, the bytes never exceed the budget.
        let one = VerificationCache(byteBudget: set + 100, largestEntry: 64 << 10)
        let chains = (0..<3).map { _ in TestReceiptChain() }
        for chain in chains + chains {
            _ = try CMSSignedData(bytes: chain.sign(ReceiptBuilder().der()), certificateSets: one)
            #expect(one.certificateSetFootprint.bytes <= set + 100)
            #expect(one.certificateSetFootprint.sets == 1)
        }
    }

    // MARK: Validations remembered

    @Test func theWindowExcludesEveryCertificateBoundary() throws {
        let container = try CMSSignedData(bytes: ReceiptTests.receipt("38-sandbox-weeka-2025-g5.der"))
        let certificates = container.certificates
        let leaf = container.signerCertificate
        let leafEnd = try #require(leaf.notAfter.flatMap(Timestamp.seconds))
        let window = try #require(ReceiptChain.window(around: leafEnd - 10, certificates))
        #expect(window.before == leafEnd)
        #expect(window.after < leafEnd - 10)
        #expect(ReceiptChain.window(around: leafEnd, certificates) == nil)
        let after = try #require(ReceiptChain.window(around: leafEnd + 10, certificates))
        #expect(after.after == leafEnd)
    }

    /// The leaf expires at a known second: one container validated just inside and then just
    /// outside (and back) gets a fresh answer each side of it, from one record per window.
    @Test func aRememberedValidationIsUsedOnlyInsideItsWindow() throws {
        let container = try CMSSignedData(
            bytes: ReceiptTests.receipt("38-sandbox-weeka-2025-g5.der"), certificateSets: VerificationCache())
        let leafEnd = try #require(container.signerCertificate.notAfter)
        let inside = ReceiptChain.validate(container, at: leafEnd.addingTimeInterval(-2))
        #expect(inside.isValid, "\(inside.failures)")
        let alsoInside = ReceiptChain.validate(container, at: leafEnd.addingTimeInterval(-1))
        #expect(alsoInside.isValid)
        #expect(alsoInside.time == leafEnd.addingTimeInterval(-1))
        #expect(container.embedded.validations.withLock { $0.count } == 1)
        let outside = ReceiptChain.validate(container, at: leafEnd.addingTimeInterval(1))
        #expect(outside.failures == [.path(.certHasExpired, depth: 0)], "\(outside.failures)")
        #expect(container.embedded.validations.withLock { $0.count } == 2)
        #expect(ReceiptChain.validate(container, at: leafEnd.addingTimeInterval(2)).failures == outside.failures)
        #expect(ReceiptChain.validate(container, at: leafEnd.addingTimeInterval(-3)).isValid)
        #expect(container.embedded.validations.withLock { $0.count } == 2)
        // Other roots are another validation.
        let other = ReceiptChain.validate(
            container, trustStore: TrustStore(roots: [try Certificate(derBytes: TestReceiptChain().root.der)]),
            at: leafEnd.addingTimeInterval(-2))
        #expect(!other.isValid)
    }

    /// Through a verifier: receipts of one set made inside and after the leaf's validity, in
    /// either order, each get their own chain answer.
    @Test func oneVerifierJudgesEachReceiptOfASetAtItsOwnTime() throws {
        let end = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01, the default leaf end
        let chain = TestReceiptChain(leafNotAfter: end)
        let early = chain.sign(ReceiptBuilder(creationDate: end.addingTimeInterval(-86_400)).der())
        let late = chain.sign(ReceiptBuilder(creationDate: end.addingTimeInterval(86_400)).der())
        var options = VerificationOptions(trustStore: TrustStore(roots: [try Certificate(derBytes: chain.root.der)]))
        options.now = Fixtures.now
        for order in [[early, late], [late, early]] {
            let verifier = Verifier(options: options)
            let statuses = order.map { verifier.inspectReceipt($0, source: "r").status }
            let alone = order.map { Verifier(options: options).inspectReceipt($0, source: "r").status }
            #expect(statuses == alone)
            #expect(Set(statuses) == [.valid, .invalidChain], "\(statuses)")
        }
    }

    /// Two receipts of one set without its root, one validated and one not: each shows its own
    /// certificate summaries (the validated path adds the trusted root), as it does alone.
    @Test func summariesFollowEachReceiptsOwnValidation() throws {
        let end = Date(timeIntervalSince1970: 1_767_225_600)
        let chain = TestReceiptChain(leafNotAfter: end)
        func receipt(_ created: Date) -> [UInt8] {
            ReceiptMinter.sign(
                content: ReceiptBuilder(creationDate: created).der(), signer: chain.leaf,
                certificates: [chain.intermediate])
        }
        let early = receipt(end.addingTimeInterval(-86_400))
        let late = receipt(end.addingTimeInterval(86_400))
        var options = VerificationOptions(trustStore: TrustStore(roots: [try Certificate(derBytes: chain.root.der)]))
        options.now = Fixtures.now
        let verifier = Verifier(options: options)
        for receipt in [early, late, early, late] {
            let shared = verifier.inspectReceipt(receipt, source: "r").chain
            let alone = Verifier(options: options).inspectReceipt(receipt, source: "r").chain
            #expect(shared.count == alone.count)
            #expect(shared.map(\.role) == alone.map(\.role))
            #expect(shared.map(\.sha256) == alone.map(\.sha256))
            #expect(shared.map(\.isTrustedRoot) == alone.map(\.isTrustedRoot))
        }
        #expect(verifier.inspectReceipt(early, source: "r").chain.count == 3)
        #expect(verifier.inspectReceipt(late, source: "r").chain.count == 2)
    }
}
