/// `leaf-oid`: the leaf carries Apple's App Store receipt-signing marker extension
/// (`AppleCertificates.leafMarkerOID`).
///
/// Decided once per (leaf, intermediate) pair, by `AppStoreChain.markerChecks` when the cache first sees it.
enum LeafOIDPolicy: VerifierPolicy {
    static let name = Check.Name("leaf-oid", failing: .invalidChain)
    static let payloadMembers: [String] = []

    static func check(_ leaf: Certificate) -> Check {
        MarkerExtension.check(name, leaf, oid: AppleCertificates.leafMarkerOID, role: "leaf")
    }
}

extension Check.Name {
    public static let leafOID = LeafOIDPolicy.name
}
