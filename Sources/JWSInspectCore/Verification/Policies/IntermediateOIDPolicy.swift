/// `intermediate-oid`: the intermediate carries Apple's WWDR marker extension
/// (`AppleCertificates.intermediateMarkerOID`).
///
/// Decided once per intermediate certificate by `VerificationCache.chain(leaf:intermediate:)`.
enum IntermediateOIDPolicy: VerifierPolicy {
    static let name = Check.Name.intermediateOID
    static let failureStatus = Status.invalidChain
    static let payloadMembers: [String] = []
}
