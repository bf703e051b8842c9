-- Print the ten most frequent words of the standard input.
import Data.Char (isAlphaNum, isAscii, toLower)
import Data.List (sortOn)
import qualified Data.Map.Strict as Map
import Text.Printf (printf)

topWords :: Int -> String -> [(String, Int)]
topWords n text = take n (sortOn (\(word, count) -> (negate count, word)) (Map.toList counts))
  where
    counts = Map.fromListWith (+) [(word, 1) | word <- splitWords (map toLower text)]
    splitWords s = case dropWhile (not . isWordChar) s of
      "" -> []
      s' -> let (word, rest) = span isWordChar s' in word : splitWords rest
    isWordChar c = isAscii c && isAlphaNum c

main :: IO ()
main = do
  text <- getContents
  mapM_ (\(word, count) -> printf "%5d %s\n" count word) (topWords 10 text)
