internal import FoundationEssentials

/// A StoreKit 1 transaction receipt as `SKPaymentTransaction.transactionReceipt` gave it, built
/// the way devices wrote one: an OpenStep property list (`{\n\t"key" = "value";\n…}`) whose
/// `purchase-info` is base64 of another, in standard base64. Every value is made up.
package struct TransactionReceiptBuilder: Sendable {
    /// `purchase-info`'s members, in order.
    package var purchaseInfo: [(key: String, value: String)]
    /// The outer members, in order; `purchase-info` goes where `purchaseInfoPlace` says.
    package var outer: [(key: String, value: String)]
    /// Where `purchase-info` is among the outer members (after the signature, as devices wrote it).
    package var purchaseInfoPlace = 1

    /// The fuller shape real receipts have: a signature and the environment around
    /// `purchase-info`, and the purchase's members in the order devices wrote them (a Sandbox
    /// purchase of `com.example.app.pro`, 2023-10-03T13:57:42Z; the signature 128 made-up bytes).
    package init() {
        purchaseInfo = [
            ("original-purchase-date-pst", "2023-10-03 06:57:42 America/Los_Angeles"),
            ("purchase-date-ms", "1696341462000"),
            ("unique-identifier", "00000000-1111-2222-3333-444444444444"),
            ("original-transaction-id", "2000000000000001"),
            ("bvrs", "1.0"),
            ("app-item-id", "1234567890"),
            ("transaction-id", "2000000000000002"),
            ("quantity", "1"),
            ("original-purchase-date-ms", "1696341462000"),
            ("unique-vendor-identifier", "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"),
            ("item-id", "987654321"),
            ("version-external-identifier", "0"),
            ("product-id", "com.example.app.pro"),
            ("purchase-date", "2023-10-03 13:57:42 Etc/GMT"),
            ("original-purchase-date", "2023-10-03 13:57:42 Etc/GMT"),
            ("bid", "com.example.app"),
            ("purchase-date-pst", "2023-10-03 06:57:42 America/Los_Angeles"),
        ]
        outer = [
            ("signature", Data((0..<128).map { UInt8($0 * 7 % 256) }).base64EncodedString()),
            ("environment", "Sandbox"), ("pod", "100"), ("signing-status", "0"),
        ]
    }

    /// A list's text as devices wrote it: one member a line, tab-indented.
    package static func text(_ members: [(key: String, value: String)]) -> String {
        "{\n" + members.map { "\t\"\($0.key)\" = \"\($0.value)\";\n" }.joined() + "}"
    }

    /// `purchase-info`'s text.
    package var purchaseInfoText: String { Self.text(purchaseInfo) }

    /// The outer list's text, `purchase-info` given as `purchaseInfoValue` (its base64 unless told).
    package func outerText(purchaseInfoValue: String? = nil) -> String {
        var members = outer
        let value = purchaseInfoValue ?? Data(purchaseInfoText.utf8).base64EncodedString()
        members.insert(("purchase-info", value), at: min(purchaseInfoPlace, members.count))
        return Self.text(members)
    }

    /// The receipt as the app had it: the outer list in standard base64.
    package var base64: String { Data(outerText().utf8).base64EncodedString() }
}
