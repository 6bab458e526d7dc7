/// `chain`: the certificates lead to a trusted root and are in date at the check time.
///
/// Decided by the trust model's validation (`AppStoreChain`, `PinnedCertificate`), which
/// validates the whole path in one OpenSSL call and caches it.
enum ChainPolicy: VerifierPolicy {
    static let name = Check.Name.chain
    static let failureStatus = Status.invalidChain
    static let payloadMembers: [String] = []
}
