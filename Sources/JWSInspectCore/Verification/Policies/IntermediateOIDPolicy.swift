/// `intermediate-oid`: the intermediate carries Apple's WWDR marker extension
/// (`AppleCertificates.intermediateMarkerOID`).
///
/// Decided here, once per (leaf, intermediate) pair, by `AppStoreChain.markerChecks` when the cache first sees it.
enum IntermediateOIDPolicy: VerifierPolicy {
    static let name = Check.Name.intermediateOID
    static let failureStatus = Status.invalidChain
    static let payloadMembers: [String] = []

    static func check(_ intermediate: Certificate) -> Check {
        MarkerExtension.check(name, intermediate, oid: AppleCertificates.intermediateMarkerOID, role: "intermediate")
    }
}
