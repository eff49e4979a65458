import Foundation

/// Diacritic folding for NSPredicate's `[d]` (regex option `d`): the text
/// with its diacritics removed (`é` → `e`, `Å` → `A`), as Foundation's
/// `.diacriticInsensitive` comparison does. Case is left alone (that is `[c]`).
///
/// ```swift
/// DiacriticFolding.fold("Crème Brûlée")   // "Creme Brulee"
/// ```
enum DiacriticFolding {
    static func fold(_ s: String) -> String {
        // ASCII has no diacritics: skip the Foundation round trip.
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return s }
        return s.folding(options: .diacriticInsensitive, locale: nil)
    }
}
