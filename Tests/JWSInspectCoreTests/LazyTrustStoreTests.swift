import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// The default trust store parses a root when first needed: a chain whose `x5c[2]` is a
/// trusted root's own bytes is validated against that root alone, and against every root when
/// that fails, so that the answer is the one an eager store gives.
@Suite struct LazyTrustStoreTests {
    static let at = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01, inside the chains' validity

    /// A store of `first` and `second`, roots parsed lazily, and the eager store of the same roots.
    static func stores(_ first: TestCertificate, _ second: TestCertificate) throws -> (TrustStore, TrustStore) {
        let lazy = TrustStore(lazyRootDERs: [first.der, second.der])
        let eager = TrustStore(roots: [try Certificate(derBytes: first.der), try Certificate(derBytes: second.der)])
        return (lazy, eager)
    }

    static func validate(_ store: TrustStore, _ chain: AppleShapedChain, namedRoot: [UInt8]?) throws
        -> TrustStore.PathValidation
    {
        store.validate(
            leaf: try Certificate(derBytes: chain.leaf.der),
            intermediates: [try Certificate(derBytes: chain.intermediate.der)], at: Self.at, checks: .rfc5280,
            floor: .level2, reviewingStrictChecks: true, namedRoot: namedRoot)
    }

    @Test func aChainNamingItsTrustedRootParsesThatRootAlone() throws {
        let other = AppleShapedChain(rootCN: "another root")
        let chain = AppleShapedChain()
        let (lazy, eager) = try Self.stores(other.root, chain.root)
        #expect(lazy.parsedRootCount == 0)
        let result = try Self.validate(lazy, chain, namedRoot: chain.root.der)
        #expect(result.isValid)
        #expect(result.path.last?.derBytes == chain.root.der)
        #expect(lazy.parsedRootCount == 1, "one root parsed, not both")
        let expected = try Self.validate(eager, chain, namedRoot: nil)
        #expect(result.path.map(\.derBytes) == expected.path.map(\.derBytes))
        #expect(result.strictFindings.count == expected.strictFindings.count)
        // The store's roots, when asked for, are all of them, in order.
        #expect(lazy.roots.map(\.derBytes) == [other.root.der, chain.root.der])
        #expect(lazy.parsedRootCount == 2)
    }

    @Test func aChainNamingAnotherTrustedRootStillValidatesAgainstItsOwn() throws {
        let other = AppleShapedChain(rootCN: "another root")
        let chain = AppleShapedChain()
        let (lazy, _) = try Self.stores(other.root, chain.root)
        // x5c[2] names the other trusted root: that root alone does not anchor the chain, every
        // root does.
        let result = try Self.validate(lazy, chain, namedRoot: other.root.der)
        #expect(result.isValid)
        #expect(result.path.last?.derBytes == chain.root.der)
    }

    @Test func aFailureReadsAsAnEagerStoresDoes() throws {
        let other = AppleShapedChain(rootCN: "another root")
        let chain = AppleShapedChain()
        let untrusted = AppleShapedChain(rootCN: "untrusted root")
        let (lazy, eager) = try Self.stores(other.root, chain.root)
        for named in [nil, other.root.der, chain.root.der, untrusted.root.der] {
            let result = try Self.validate(lazy, untrusted, namedRoot: named)
            let expected = try Self.validate(eager, untrusted, namedRoot: nil)
            #expect(!result.isValid)
            #expect(result.errorText == expected.errorText && result.errorDepth == expected.errorDepth)
        }
    }

    @Test func aFailureOnAPathToTheNamedRootIsNotAskedTwice() throws {
        let other = AppleShapedChain(rootCN: "another root")
        let root = AppleShapedChain().root
        // The leaf expired before the check time: the path reaches the named root and fails there.
        let expired = AppleShapedChain(
            root: root, leafNotBefore: Date(timeIntervalSince1970: 1_600_000_000),
            leafNotAfter: Date(timeIntervalSince1970: 1_700_000_000))
        let (lazy, eager) = try Self.stores(other.root, root)
        let result = try Self.validate(lazy, expired, namedRoot: root.der)
        let expected = try Self.validate(eager, expired, namedRoot: nil)
        #expect(result.error == .certHasExpired)
        #expect(result.errorText == expected.errorText && result.errorDepth == expected.errorDepth)
        #expect(lazy.parsedRootCount == 1, "the other root is never needed")
    }
}
