/// `intermediate-oid`: the intermediate carries Apple's WWDR marker extension
/// (`AppleCertificates.intermediateMarkerOID`).
///
/// Decided once per (leaf, intermediate) pair, by `AppStoreChain.markerChecks` when the cache first sees it.
enum IntermediateOIDPolicy: VerifierPolicy {
    static let name = Check.Name("intermediate-oid", failing: .invalidChain)
    static let payloadMembers: [String] = []

    static func check(_ intermediate: Certificate) -> Check {
        MarkerExtension.check(name, intermediate, oid: AppleCertificates.intermediateMarkerOID, role: "intermediate")
    }
}

extension Check.Name {
    public static let intermediateOID = IntermediateOIDPolicy.name
}
