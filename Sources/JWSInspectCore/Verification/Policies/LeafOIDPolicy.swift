/// `leaf-oid`: the leaf carries Apple's App Store receipt-signing marker extension
/// (`AppleCertificates.leafMarkerOID`).
///
/// Decided once per leaf certificate by `VerificationCache.chain(leaf:intermediate:)`.
enum LeafOIDPolicy: VerifierPolicy {
    static let name = Check.Name.leafOID
    static let failureStatus = Status.invalidChain
    static let payloadMembers: [String] = []
}
