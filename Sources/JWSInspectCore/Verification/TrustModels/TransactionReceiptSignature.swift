/// A StoreKit 1 transaction receipt's trust model: none jwsinspect has. Its `signature` is in a
/// format Apple never documented, made with certificates that expired long ago; only Apple can
/// say whether its transaction is real, through the App Store Server API's Get Transaction Info
/// (`Hint.fetchTransaction`). Its one check, `signature`, always fails, with `unverifiable`
/// (exit 10): a transaction receipt is never valid and never grants access.
enum TransactionReceiptSignature {
    static let name = Check.Name("signature", failing: .unverifiable)

    /// The one check, failing, saying how to verify the transaction instead.
    static func validate(_ receipt: TransactionReceiptEnvelope, hints: any HintWording) -> TrustValidation {
        TrustValidation(
            checks: [Check(name, passed: false, Detail(transactionID: receipt.transactionID, hints: hints))])
    }

    /// Why the signature is not verified, and what verifies the transaction instead.
    struct Detail: CheckDetail {
        /// `purchase-info`'s `transaction-id`, as written.
        let transactionID: String?
        let hints: any HintWording

        var text: String {
            let why =
                "not verifiable — a StoreKit 1 transaction receipt's signature is in a format Apple never documented "
                + "and its certificates expired"
            guard let id = transactionID else { return why + "; it holds no transaction-id to ask Apple about" }
            guard let fetchable = TransactionReceiptEnvelope.fetchable(id) else {
                return why + "; its transaction-id \"\(Excerpt.of(id))\" is not one Apple issues (decimal digits)"
            }
            return why + "; verify the transaction through Apple: " + hints.word(.fetchTransaction(id: fetchable))
        }
    }
}
