internal import FoundationEssentials
internal import JWSInspectCore

/// A receipt's in-app entries as a table: product, transaction ID, purchased, expires,
/// cancelled, and whether each grants access at the access time.
enum InAppTable {
    static let columns = ["product", "transaction ID", "purchased", "expires", "cancelled", "access"]

    /// The table's lines (a header row, then one row per entry), or a line saying there are none.
    ///
    /// - Parameter decides: whether access is decided at all (the receipt verified); when not,
    ///   no entry is shown as granting access.
    /// - Parameter style: how dates read: as signed in UTC, or in `--time-zone`'s zone.
    static func lines(_ receipt: ReceiptPayload, at time: Date, decides: Bool, style: DateStyle = .utc) -> [String] {
        guard !receipt.inApp.isEmpty else { return ["  none"] }
        let inDate = receipt.isInDate(at: time)
        let rows = receipt.inApp.map { entry -> [String] in
            [
                entry.productID ?? "?", entry.transactionID ?? "?",
                text(entry, InAppPurchase.Field.purchaseDate, style),
                text(entry, InAppPurchase.Field.expiresDate, style),
                text(entry, InAppPurchase.Field.cancellationDate, style),
                !decides ? "not decided" : !inDate ? "receipt expired" : standing(entry, at: time),
            ].map(TerminalText.safe)
        }
        let all = [columns] + rows
        let widths = columns.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            return "  " + cells.joined(separator: "  ")
        }
    }

    /// Whether an entry grants access, in a word: active, expired, cancelled, …
    static func standing(_ entry: InAppPurchase, at time: Date) -> String {
        switch Entitlement.standing(entry.purchase, at: time) {
        case .active, .owned: "active"
        case .expired: "expired"
        case .revoked: "cancelled"
        case .revocationUnreadable, .upgradeUnreadable, .expiryUnreadable: "unreadable: no access"
        case .upgraded: "upgraded"
        case .consumable: "consumable"
        case .notYetPurchased: "not yet purchased"
        case .noTerm: "no term"
        case .termIsTheApps: "the app's to decide"
        case .unknownType: "unknown type"
        }
    }

    /// A date field as signed (in another zone, the moment it names there), "-" when absent or
    /// empty, "unreadable" when it is no date string.
    private static func text(_ entry: InAppPurchase, _ type: Int, _ style: DateStyle) -> String {
        guard let attribute = entry.attribute(type) else { return "-" }
        guard let value = attribute.value.string else { return "unreadable" }
        guard !value.isEmpty else { return "-" }
        guard !style.isUTC, let date = ReceiptDate.parse(value) else { return value }
        return style.stamp(date)
    }
}
